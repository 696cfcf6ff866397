"""The workflow's kernel and its registry: what the Snakefile, the rules and the sections use at parse time.

The kernel (below the sections): ``paths`` (the shared results paths, once), ``section`` (what a section is),
``datasets`` (raw-file layouts), ``validation`` and ``schema_errors`` (config checks the schemas cannot
express, one line per problem), ``digests``, ``job_guard``, ``logs``, ``dryrun``.  Above the sections: the
registry ``sections`` (every section, in order), ``config_checks`` (the one check of a config, before any
job) and ``plan`` (``ltrbv plan``).  The sections themselves are ``ltrbv.sections.<name>``.
"""
