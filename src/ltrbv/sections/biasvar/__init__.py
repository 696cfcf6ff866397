"""The bias-variance study (Ibrahim 2021; Zhang et al. 2013): training sets, sweep, reducers, tables, figures
and the summary; config section ``biasvar``."""
