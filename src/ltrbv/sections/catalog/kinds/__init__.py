"""The catalog's entry kinds: one module each, found here (a new kind is one new module).

A kind module declares

* ``NAME`` (the entry's ``kind:``), ``FIELDS`` (the JSON schema of its own fields; the catalog schema
  discriminates on ``kind`` with them, :func:`ltrbv.sections.catalog.grid.schema`) and ``REQUIRED``;
* ``CLAIMS``: the claim kinds it takes (``{claim kind: the fields the claim needs}``);
* ``FIGURE``: whether its job draws a figure (``png``, ``svg``) beside its table (``csv``, ``md``) and its
  claims' tests (``claims.csv``); ``JOB = False`` for a kind that has no job of its own (``target``);

and the functions

* ``learners(config, entry)``: the learners its runs train (generated ones included);
* ``generated(config, entry)``: ``[(base, params)]`` of the learners it generates (sweep, grid), optional;
* ``problems(config, key, entry, sections)``: its config mistakes the schema cannot see, naming ``key``;
* ``claim_problems(where, claim, entry, config)``: a claim's mistakes;
* ``files(config, dataset, name, entry)``: its job's input files by name (nested dicts of paths);
* ``make(files, entry, seed, dataset)``: its job: the table, the claims' tests, the Markdown page and the
  figure (:class:`~ltrbv.sections.catalog.tables.Made`);
* ``benchmarks(config, dataset, name, entry)``: the benchmark files of the jobs behind it (its CPU time).
"""

from __future__ import annotations

import importlib
import pkgutil

#: ``{kind: module}``, in name order
KINDS = {module.NAME: module for module in
         (importlib.import_module(f"{__name__}.{info.name}")
          for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)
          if not info.name.startswith("_"))}
#: the kinds whose entries have a job (a table)
WITH_JOB = tuple(name for name, module in KINDS.items() if getattr(module, "JOB", True))
