"""The bias-variance study's tables, figures and summary, built from the reducers' outputs."""
