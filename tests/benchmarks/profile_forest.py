"""Where a forest's compiled kernel spends its time: ``perf record`` of RankingForest fits, numba's JIT code
mapped to its functions.

    python tests/benchmarks/profile_forest.py --splitting hybrid --trees 300 [--subsample 0.63] [--data DIR]

perf sees numba's machine code as anonymous JIT memory (``[JIT] tid N``).  The cached kernel ``build_tree`` holds
every function it calls that LLVM did not inline in one object file (the numba cache's ``.nbc`` pickles it as
ELF); its ``.text`` starts with ``build_tree`` itself, so a sample at address A lies in the function whose symbol
covers A - address(build_tree).  This script fits the forest once to warm the cache (untimed), then in a child
process under ``perf record`` (``perf`` from linux-tools must be installed) fits it again and writes the kernel's
address, and prints the share of the kernel's samples per function (and of all samples in the kernel).
Data: MQ2008 Fold1 train (``--data``, default ``../shared/data/MQ2008/Fold1``).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import glob
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def fit(args) -> None:
    """The child: warm up, fit the forest, write build_tree's address to args.address."""
    from ltrbv.data.letor import read_letor
    from ltrbv.forest import RankingForest, _builder

    data = read_letor(Path(args.data) / "train.txt")
    params = dict(splitting=args.splitting, listwise_levels=6, subsample=args.subsample, random_state=0)
    RankingForest(n_estimators=1, **params).fit(data)
    RankingForest(n_estimators=args.trees, **params).fit(data)
    for cres in _builder.build_tree.overloads.values():
        Path(args.address).write_text(f"{cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name):x}\n")


def kernel_object(cache_dir: Path) -> Path:
    """The ELF object of the newest cached build_tree under cache_dir."""
    files = sorted(glob.glob(str(cache_dir / "**" / "_builder.build_tree-*.nbc"), recursive=True), key=os.path.getmtime)
    if not files:
        raise SystemExit(f"no cached build_tree under {cache_dir}")
    found = []

    def walk(item):
        if isinstance(item, bytes) and item[:4] == b"\x7fELF":
            found.append(item)
        elif isinstance(item, (tuple, list)):
            for x in item:
                walk(x)
        elif isinstance(item, dict):
            for x in item.values():
                walk(x)

    walk(pickle.loads(Path(files[-1]).read_bytes()))
    out = cache_dir / "build_tree.o"
    out.write_bytes(found[0])
    return out


def demangle(name: str) -> str:
    """ltrbv.forest._splitter.radix_sort from numba's Itanium-style mangled name (enough for a report)."""
    parts, rest = [], name[2:].lstrip("N")
    while rest and rest[0].isdigit():
        k = int(re.match(r"\d+", rest).group())
        d = len(str(k))
        parts.append(rest[d:d + k])
        rest = rest[d + k:]
    return ".".join(p for p in parts if p not in ("cpython",)).replace("_3clocals_3e", "<locals>")


def report(obj: Path, base: int, ips: list[int], top: int) -> None:
    symbols = []
    for line in subprocess.run(["nm", "-S", str(obj)], capture_output=True, text=True, check=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "TtWw":
            symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    symbols.sort()
    starts = [s[0] for s in symbols]
    end = max(s[0] + s[1] for s in symbols)
    counts = collections.Counter()
    for ip in ips:
        offset = ip - base
        if 0 <= offset < end:
            i = bisect.bisect_right(starts, offset) - 1
            inside = i >= 0 and offset < symbols[i][0] + symbols[i][1]
            counts[demangle(symbols[i][2]) if inside else "?"] += 1
    kernel = sum(counts.values())
    print(f"{len(ips)} samples, {kernel} in the kernel ({100 * kernel / max(len(ips), 1):.1f}%)")
    for name, c in counts.most_common(top):
        print(f"{100 * c / kernel:6.1f}%  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splitting", default="point", choices=["point", "list", "hybrid"])
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--subsample", type=float, default=0.63)
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "MQ2008" / "Fold1"))
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.trees < 1:
        parser.error("--trees must be >= 1")
    if not 0 < args.subsample <= 1:  # NaN too
        parser.error("--subsample must be in (0, 1]")
    if args.top < 1:
        parser.error("--top must be >= 1")
    if not (Path(args.data) / "train.txt").is_file():
        parser.error(f"--data: no train.txt in {args.data}")
    if args.child:
        fit(args)
        return
    if shutil.which("perf") is None:
        raise SystemExit("perf is not installed (apt install linux-perf / linux-tools)")
    with tempfile.TemporaryDirectory(prefix="ltrbv-profile-") as tmp:
        tmp = Path(tmp)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp / "numba"))
        child = [sys.executable, __file__, "--child", "--address", str(tmp / "address"), "--splitting",
                 args.splitting, "--trees", str(args.trees), "--subsample", str(args.subsample), "--data", args.data]
        subprocess.run(child[:3] + ["--address", str(tmp / "warm")] + child[5:], env=env, check=True)  # compile, cache
        subprocess.run(["perf", "record", "-q", "-o", str(tmp / "perf.data"), *child], env=env, check=True)
        script = subprocess.run(["perf", "script", "-i", str(tmp / "perf.data"), "-F", "ip"], capture_output=True,
                                text=True, check=True).stdout
        ips = [int(line, 16) for line in script.split()]
        base = int((tmp / "address").read_text(), 16)
        report(kernel_object(tmp / "numba"), base, ips, args.top)


if __name__ == "__main__":
    main()
