"""The workflow's sections, one folder each: its job grid, tables, pages and figures.

``core`` (parse, train, evaluate, performance), ``bagging`` (Ganjisaffar et al. 2011), ``biasvar`` (the
bias-variance study), ``active`` (Sawade et al. 2013), ``diagnostics`` (forest diagnostics), ``catalog`` (every
table and figure of the papers) and ``report`` (the HTML report's pages).  Each declares its
:class:`~ltrbv.workflow.section.Section`; the registry :mod:`ltrbv.workflow.sections` lists them in order.
"""
