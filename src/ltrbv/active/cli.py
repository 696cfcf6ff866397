"""Command-line sub-commands of this package (registered by ltrbv.cli)."""


def add_parsers(sub) -> None:
    """Add this package's sub-commands to the ``ltrbv`` argument parser's sub-parsers."""
