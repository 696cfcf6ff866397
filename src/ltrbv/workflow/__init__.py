"""The workflow layer: what the Snakefile and the rules use at parse time.

``paths`` (every results path, once), ``sections`` (the core run and the optional experiments behind one
protocol: settings, targets, problems), ``config_checks`` (the one check of a config, before any job),
one job grid per section (``core_grid``, ``bagging_grid``, ``biasvar_grid``, ``diagnostics_grid``,
``active_grid``), ``report_grid`` (the report's pages), ``datasets`` (raw-file layouts), ``plan``
(``ltrbv plan``).
"""
