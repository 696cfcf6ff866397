"""ltrbv: bias and variance of learning-to-rank algorithms."""

__version__ = "0.1.0"
