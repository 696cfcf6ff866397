"""Checksums of a workflow's results, to show a change leaves every output byte-identical.

    python tests/checksums/compare_outputs.py manifest results > before.sha256
    ... change the code, rerun the workflow ...
    python tests/checksums/compare_outputs.py compare before.sha256 results

A manifest line is ``sha256  relative/path``.  Logs, benchmarks, report pages, the raw files' digest stamps
(``digests/``, written when a run starts, so their presence depends on how many runs there were) and
Snakemake's own files are left out (they hold times and host names); in a ``meta.json`` the keys that record the
wall-clock time (any key with ``seconds`` in it), the package versions or the run's provenance (``provenance``:
the code's commit, which changes with every commit, and the config files' paths) are dropped before hashing,
everything else counts (``digests`` too: the SHA-256 of the run's score files and parsed data are the same on
every machine).
``compare`` prints every file missing, added or changed and exits 1 when there is any.

Recorded baselines (``snakemake --cores 2`` plus the config files named; each in a clean clone):

* ``baseline-demo.sha256``: the demo (no ``--configfile``), 292 files;
* ``baseline-demo-active-small.sha256``: ``--configfile config/demo.yaml tests/checksums/active-small.yaml``,
  430 files;
* ``baseline-mq2008-small.sha256``: ``--configfile tests/checksums/mq2008-small.yaml`` (config/mq2008.yaml's
  sections at a smaller size; its root is the project machine's /work/shared/data/MQ2008), 333 files.

History: all three recorded at cf64e81, before the section folders (issue 27); the section folders gave 0
differences on each.  Then the demo's synthetic data changed (issue 28's CPU-independent generator) and the
two demo baselines were re-recorded in a commit of their own; the MQ2008 one (real data) stayed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

SKIPPED_PARTS = {"logs", "benchmarks", "report", "digests", ".snakemake"}
VOLATILE_META_KEYS = {"fit_seconds", "seconds", "versions", "provenance", "elapsed_seconds", "wall_seconds",
                      "timestamp"}


def _without_volatile(value):
    if isinstance(value, dict):
        return {key: _without_volatile(item) for key, item in value.items()
                if key not in VOLATILE_META_KEYS and "seconds" not in key}
    if isinstance(value, list):
        return [_without_volatile(item) for item in value]
    return value


def file_digest(path: Path) -> str:
    data = path.read_bytes()
    if path.name.endswith(".json") and path.name.startswith("meta"):
        data = json.dumps(_without_volatile(json.loads(data)), sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def manifest(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if not path.is_file() or SKIPPED_PARTS.intersection(relative.parts):
            continue
        out[relative.as_posix()] = file_digest(path)
    return out


def read_manifest(path: Path) -> dict[str, str]:
    entries = {}
    for line in path.read_text().splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            entries[name] = digest
    return entries


def differences(before: dict[str, str], after: dict[str, str], ignore: tuple[str, ...] = ()) -> list[str]:
    def kept(name):
        return not any(Path(name).match(pattern) or name.startswith(pattern) for pattern in ignore)

    lines = []
    for name in sorted(set(before) | set(after)):
        if not kept(name):
            continue
        if name not in after:
            lines.append(f"missing  {name}")
        elif name not in before:
            lines.append(f"added    {name}")
        elif before[name] != after[name]:
            lines.append(f"changed  {name}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("manifest", help="print the manifest of a results folder")
    make.add_argument("root", type=Path)
    check = sub.add_parser("compare", help="compare a results folder with a manifest")
    check.add_argument("manifest", type=Path)
    check.add_argument("root", type=Path)
    check.add_argument("--ignore", action="append", default=[],
                       help="a path prefix or glob left out of the comparison (repeatable)")
    args = parser.parse_args(argv)
    if args.command == "manifest":
        for name, digest in manifest(args.root).items():
            print(f"{digest}  {name}")
        return 0
    before, after = read_manifest(args.manifest), manifest(args.root)
    lines = differences(before, after, tuple(args.ignore))
    for line in lines:
        print(line)
    compared = len([name for name in set(before) | set(after)])
    print(f"{compared} files compared, {len(lines)} differences", file=sys.stderr)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
