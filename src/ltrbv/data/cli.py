"""``ltrbv data verify``: which known data set a folder holds and whether its files are intact (registered by
ltrbv.cli)."""

from __future__ import annotations

import argparse


def _verify(args: argparse.Namespace) -> int:
    from .verify import report_lines, verify

    result = verify(args.root, dataset=args.dataset, record=not args.no_record)
    print("\n".join(report_lines(result)))
    return 0 if result.ok else 1


def add_parsers(sub) -> None:
    from .manifest import known_manifests

    names = ", ".join(m.name for m in known_manifests())
    data = sub.add_parser("data", help="check a data set's files against the shipped SHA-256 manifests",
                          description="Real data sets: `ltrbv data verify ROOT` "
                          "(docs/data.md#checking-a-copy-ltrbv-data-verify-root).",
                          epilog="Example:\n  ltrbv data verify ../shared/data/MQ2008")
    commands = data.add_subparsers(dest="data_command", required=True, help="verify")
    check = commands.add_parser(
        "verify", help="recognise the data set under ROOT and report missing, changed and extra files",
        description=f"Recognise the data set under ROOT by its file names and SHA-256 digests (known: {names}) "
        "and list every missing, changed and extra file; exit status 1 when a file is missing or changed, or "
        "the data set is not recognised. Where no published checksum is known, the digests seen on the first "
        "complete, unchanged verification are recorded in $XDG_CACHE_HOME/ltrbv/digests/ (default "
        "~/.cache/ltrbv/digests/) and later runs compare against them.",
        epilog="Example:\n  ltrbv data verify ../shared/data/MQ2008 --no-record")
    check.add_argument("root", metavar="ROOT", help="the data set's folder (what datasets.<name>.root points at)")
    check.add_argument("--dataset", metavar="NAME", help=f"verify as this data set instead of recognising it ({names})")
    check.add_argument("--no-record", action="store_true",
                       help="do not record the digests of files without a published checksum")
    check.set_defaults(func=_verify)
