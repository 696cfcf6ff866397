"""Calibration runs for ``ltrbv plan``'s cost models, and their check on a held-out size.

    python tests/benchmarks/calibrate_costs.py --configfile config/paper.yaml config/catalog.yaml \\
        config/catalog-paper.yaml --sizes yahoo=Yahoo-set1 --fractions 0.0025 0.01 0.04 \\
        --full 0.01 --held-out 0.16 --lean-datasets mslr10k [--out results/calibration] [--cores 2]
    ltrbv plan --configfile config/paper.yaml config/catalog.yaml config/catalog-paper.yaml --placeholders \\
        --sizes yahoo=Yahoo-set1 --calibration results/calibration/f*/

For each fraction ``f`` the config's whole workflow runs on synthetic data shaped like each of its data sets
(:func:`calibration_config`): the same features, label range and documents per query, ``f`` of its training
queries (a fold of the LETOR five-fold layout: the synthetic set has ``f x queries x 5/3`` queries), with every
learner's trees capped (``--caps``), one thread, and the multiplicities that only repeat a job cut (seeds, the
study's replicates, the bagging trials, a bag's sub-models: ``ltrbv plan`` prices them through its ``models`` and
``inputs`` features).  Each run is a folder ``<out>/f<fraction>/`` with the complete config (``config.yaml``), the
dry-run listing made before it ran (``dryrun.txt``), its results and ``run.json`` (CPU and wall time of the
run, the load before and after).  Every job's log ends with its CPU time, the start-up apart
(``ltrbv.workflow.logs.CPU_LINE``), which is what the cost models are fitted on.

One run (``--full``) has every job of the config on every data set: every key (rule, learner, setting, data set)
is measured there.  The others are *lean* (fewer catalog entries and sweep values, on ``--lean-datasets``): they
measure each group's exponents and constant work, which the full run's keys borrow.

``--held-out F``: one more lean run at fraction F, whose jobs the models fitted on the other runs predict; the error per rule (sum predicted / sum measured - 1, and the median
job's) is written to ``<out>/validation.json`` and ``.md``.  A run folder that already holds a finished run
(``run.json``) is reused, not rerun (``--rerun`` to redo it).

Measured in CPU seconds (the logs' getrusage), not wall time: the numbers hold on a machine other work keeps
busy, whose load is recorded.  ``OMP_WAIT_POLICY=PASSIVE`` is set for the runs: with the default, XGBoost's
idle OpenMP threads spin on a loaded machine and count as CPU time (docs/cluster.md).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import load_average  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

from ltrbv.workflow.plan import (CALIBRATION_CONFIG, CALIBRATION_DRYRUN, MODEL_RULES, SizeTable,  # noqa: E402
                                 calibration_costs, calibration_table, expanded_config, merged_config)
from ltrbv.workflow.sizes import published_name  # noqa: E402

#: the synthetic generator's shape of a published data set (the label shares of its training set, rounded;
#: Yahoo's sparsity and value style approximate: its features are normalised, many of them absent)
SHAPES = {
    "MSLR-WEB10K": {"label_probs": [0.52, 0.32, 0.13, 0.02, 0.01], "style": "raw", "sparsity": 0.05},
    "Yahoo-set1": {"label_probs": [0.26, 0.36, 0.28, 0.08, 0.02], "style": "letor", "sparsity": 0.65},
}
DEFAULT_CAPS = {"random_forest": 10, "xgboost": 20, "lightgbm": 20}
#: the share of a LETOR five-fold data set's queries in a fold's training split
TRAIN_SHARE = 3 / 5


def _label_probs(max_label: int) -> list[float]:
    weights = [0.5 ** (2 * label) for label in range(max_label + 1)]
    return [round(w / sum(weights), 6) for w in weights[:-1]] + [round(1 - sum(round(w / sum(weights), 6) for w in weights[:-1]), 6)]


def synthetic_entry(name: str, entry: dict, train, fraction: float, mapping: dict, seed: int) -> dict:
    """A synthetic data set shaped like ``entry`` (sizes ``train``: its first fold's training split) at ``fraction``
    of its training queries, in the LETOR five-fold layout under results/<name>/raw."""
    n_features = int(entry["n_features"])
    max_label = int(entry["label_range"][1])
    shape = SHAPES.get(published_name(name, mapping) or "", {})
    queries = max(10, round(train.queries * fraction / TRAIN_SHARE))
    per_query = train.docs / train.queries
    spec = {
        "n_queries": queries, "docs_per_query": round(per_query, 2), "min_docs": 2,
        "max_docs": int(max(200, 4 * per_query)), "n_features": n_features,
        "n_informative": max(1, min(40, n_features // 3)), "n_query_level": min(10, n_features // 10),
        "max_label": max_label, "label_probs": shape.get("label_probs", _label_probs(max_label)),
        "style": shape.get("style", "raw"), "sparsity": shape.get("sparsity", 0.05), "seed": seed,
    }
    folds = [f"Fold{i}" for i in range(1, min(len(entry["folds"]), 5) + 1)]
    kept = {key: entry[key] for key in ("n_features", "label_range", "conventions") if key in entry}
    return {**kept, "root": f"results/{name}/raw", "layout": "letor", "folds": folds, "synthetic": spec}


def calibration_config(config: dict, fraction: float, mapping: dict, caps: dict, datasets=None,
                       lean: bool = False) -> dict:
    """The config of one calibration run: every data set of the run replaced by a synthetic one of its shape at
    ``fraction`` of its training queries, every learner's trees capped and one thread, the repetitions cut.

    ``lean``: a run that measures the cost models' exponents, not every key: the catalog keeps the first entry
    of each kind (the first two comparisons), each sweep (the catalog's and the study's) its first and last
    value, each grid the first and last value of each parameter.  The keys it leaves out are measured by the
    full run; the plan prices them with their own intercepts and their group's exponents."""
    config = copy.deepcopy(config)
    sizes = SizeTable(expanded_config(config), mapping=mapping)
    names = list(datasets or config["run"]["datasets"])
    for i, name in enumerate(config["run"]["datasets"]):
        entry = config["datasets"][name]
        train = sizes(name, entry["folds"][0], "train")
        config["datasets"][name] = synthetic_entry(name, entry, train, fraction, mapping, seed=20261126 + i)
    config["run"]["datasets"] = names
    for section in ("biasvar", "catalog", "active", "diagnostics", "bagging"):
        part = config.get(section)
        if isinstance(part, dict) and isinstance(part.get("datasets"), list):
            part["datasets"] = [d for d in part["datasets"] if d in names]
    for entry in config["learners"].values():
        params = entry.setdefault("params", {})
        kind = entry.get("kind")
        if kind in caps:
            params["n_estimators"] = min(int(params.get("n_estimators", caps[kind])), caps[kind])
        if kind == "bag":
            params["n_models"] = min(int(params.get("n_models", 2)), 2)
        entry["threads"] = 1
    config["run"]["seeds"] = config["run"].get("seeds", [1])[:1]
    study = config.get("biasvar")
    if isinstance(study, dict):
        study.setdefault("bootstrap", {})["replicates"] = min(int(study["bootstrap"].get("replicates", 10)), 2)
        study.setdefault("twofold", {})["repetitions"] = 1
    trials = (config.get("bagging") or {}).get("variance_trials")
    if isinstance(trials, dict):
        trials["n_trials"] = 2
    catalog = config.get("catalog")
    if isinstance(catalog, dict):
        if catalog.get("seeds"):
            catalog["seeds"] = catalog["seeds"][:1]
        if lean:
            catalog["entries"] = lean_entries(catalog.get("entries") or {}, config["learners"])
            if isinstance(study, dict) and isinstance(study.get("sweep"), dict) and study["sweep"].get("values"):
                values = study["sweep"]["values"]
                study["sweep"]["values"] = sorted({values[0], values[-1]})
        for entry in (catalog.get("entries") or {}).values():
            if isinstance(entry, dict) and entry.get("seeds"):
                entry["seeds"] = entry["seeds"][:1]
            if lean and isinstance(entry, dict) and isinstance(entry.get("values"), list) and len(entry["values"]) > 2:
                entry["values"] = [entry["values"][0], entry["values"][-1]]
            if lean and isinstance(entry, dict) and isinstance(entry.get("grid"), dict):
                entry["grid"] = {param: sorted({values[0], values[-1]}, key=values.index)
                                 for param, values in entry["grid"].items()}
                combinations = math.prod(len(values) for values in entry["grid"].values())
                entry["sizes"] = sorted({1, combinations})
    return config


def lean_entries(entries: dict, learners: dict) -> dict:
    """The catalog entries a lean run keeps, in order: the first of each kind, and each comparison that adds a
    learner family (a kind and a forest's splitting) the kept ones lack."""
    def family(name):
        entry = learners.get(name, {})
        return entry.get("kind"), (entry.get("params") or {}).get("splitting")

    kept, kinds, families = {}, set(), set()
    for name, entry in entries.items():
        kind = entry.get("kind") if isinstance(entry, dict) else None
        new = {family(learner) for learner in entry.get("learners", [])} - families if kind == "compare" else set()
        if kind is None or kind not in kinds or new:
            kept[name] = entry
            kinds.add(kind)
            families |= {family(learner) for learner in entry.get("learners", [])} if isinstance(entry, dict) else set()
    return kept


def snakemake(folder: Path, *extra: str, cores: int = 2, capture: bool = False):
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "OMP_WAIT_POLICY": "PASSIVE"}
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(folder),
               "--configfile", str(folder / CALIBRATION_CONFIG), "--cores", str(cores), "--nocolor", *extra]
    return subprocess.run(command, env=env, capture_output=capture, text=True)


def calibration_run(folder: Path, config: dict, cores: int, rerun: bool) -> dict:
    """Write the run's config and dry-run listing, run it (unless a finished run is there), return run.json."""
    record = folder / "run.json"
    if record.exists() and not rerun:
        return json.loads(record.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CALIBRATION_CONFIG).write_text(yaml.safe_dump(config, sort_keys=False))
    listing = snakemake(folder, "--dry-run", "--forceall", cores=cores, capture=True)
    if listing.returncode != 0:
        raise SystemExit(f"the calibration config of {folder} fails its dry run:\n{listing.stdout[-3000:]}{listing.stderr[-3000:]}")
    (folder / CALIBRATION_DRYRUN).write_text(listing.stdout + listing.stderr)
    load_before, started = load_average(), time.time()
    usage = os.times()
    result = snakemake(folder, "--keep-going", "--rerun-incomplete", cores=cores, capture=True)
    after = os.times()
    info = {"folder": str(folder), "returncode": result.returncode, "wall_s": round(time.time() - started, 1),
            "tree_cpu_s": round(after.children_user + after.children_system - usage.children_user
                                - usage.children_system, 1),
            "load_before": load_before, "load_after": load_average(),
            "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)), "cores": cores,
            "commit": subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                                     text=True).stdout.strip()}
    if result.returncode != 0:
        info["failed"] = [line for line in (result.stdout + result.stderr).splitlines() if "Error in rule" in line][:50]
        (folder / "snakemake.err").write_text(result.stdout[-20000:] + result.stderr[-20000:])
    record.write_text(json.dumps(info, indent=2) + "\n")
    return info


WARM_UP = """
import sys, tempfile, yaml
from pathlib import Path
from ltrbv.data.cache import load_cache, save_cache
from ltrbv.data.letor import read_letor
from ltrbv.data.synthetic import SyntheticSpec, write_letor_folds
from ltrbv.evaluation import per_query_table
from ltrbv.learners import LEARNER_KINDS, make_learner
from ltrbv.workflow.plan import expanded_config

config = expanded_config(yaml.safe_load(Path(sys.argv[1]).read_text()))
with tempfile.TemporaryDirectory() as folder:
    seen = set()
    for name, entry in config["datasets"].items():
        spec = {**entry["synthetic"], "n_queries": 30, "seed": 1}
        spec = SyntheticSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()})
        write_letor_folds(Path(folder) / name, spec, folds=(1,))
        splits = {}
        for split in ("train", "vali", "test"):
            data = read_letor(Path(folder) / name / "Fold1" / f"{split}.txt", n_features=entry["n_features"],
                              max_feature=entry["n_features"], label_range=tuple(entry["label_range"]))
            save_cache(data, Path(folder) / f"{name}-{split}.npz")
            splits[split] = load_cache(Path(folder) / f"{name}-{split}.npz")
        for learner, spec in config["learners"].items():
            if spec["kind"] not in ("random_forest", "xgboost", "lightgbm"):
                continue
            params = {**spec.get("params", {}), "n_estimators": 2}
            key = (spec["kind"], repr(sorted((k, v) for k, v in params.items() if k not in ("n_estimators", "seed"))))
            if key in seen:
                continue
            seen.add(key)
            model = make_learner(spec["kind"], params, random_state=1, n_threads=1)
            scores = model.fit_predict(splits["train"], splits["vali"], (splits["test"],))[0]
            per_query_table(splits["test"], scores, config["metrics"], entry["conventions"])
print("warmed up", len(seen), "learner variants")
"""


def warm_up(folder: Path, config: dict) -> None:
    """Compile the numba kernels (numba caches them on disk) before any calibration job: a compilation is paid
    once per checkout, and a job that paid it would be an outlier of its cost model."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "warm-up.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "OMP_WAIT_POLICY": "PASSIVE"}
    result = subprocess.run([sys.executable, "-c", WARM_UP, str(path)], env=env, capture_output=True, text=True)
    print(result.stdout.strip() or result.stderr[-2000:])


def validate(calibration_dirs: list[Path], held_out: Path) -> dict:
    """Fit on the calibration runs, predict the held-out run's jobs: the error per rule and per group."""
    from ltrbv.workflow.costs import FEATURES, fit_models

    models = fit_models(calibration_costs([str(d) for d in calibration_dirs]), training_rules=MODEL_RULES)
    table = calibration_table(held_out)
    rows = []
    for _, job in table.iterrows():
        price = models.predict(job["rule"], job["family"], job["learner"], job["setting"], job["dataset"],
                               {f: job[f] for f in FEATURES})
        rows.append({"rule": job["rule"], "family": job["family"], "learner": job["learner"],
                     "setting": job["setting"], "measured": job["startup"] + job["work"],
                     "predicted": price["seconds"], "low": price["low"], "high": price["high"],
                     "source": price["source"]})
    per_rule = {}
    for (rule, family), group in _group(rows):
        measured = sum(r["measured"] for r in group)
        predicted = sum(r["predicted"] for r in group)
        errors = sorted(r["predicted"] / r["measured"] - 1 for r in group)
        per_rule[f"{rule} {family}".strip()] = {
            "jobs": len(group), "measured_s": round(measured, 2), "predicted_s": round(predicted, 2),
            "error": round(predicted / measured - 1, 3), "median_job_error": round(errors[len(errors) // 2], 3),
            "jobs_within_30pct": sum(abs(e) <= 0.3 for e in errors),
            "inside_low_high": sum(r["low"] <= r["measured"] <= r["high"] for r in group)}
    measured = sum(r["measured"] for r in rows)
    predicted = sum(r["predicted"] for r in rows)
    return {"held_out": str(held_out), "calibration": [str(d) for d in calibration_dirs], "jobs": len(rows),
            "measured_s": round(measured, 1), "predicted_s": round(predicted, 1),
            "error": round(predicted / measured - 1, 3), "per_rule": per_rule}


def _group(rows):
    out = {}
    for row in rows:
        out.setdefault((row["rule"], row["family"]), []).append(row)
    return sorted(out.items())


def markdown(report: dict) -> str:
    lines = [f"Held-out run {report['held_out']}: {report['jobs']} jobs, measured {report['measured_s']} CPU-s, "
             f"predicted {report['predicted_s']} ({report['error']:+.1%})", "",
             "| rule (family) | jobs | measured CPU-s | predicted | error | median job | jobs within ±30% | in low-high |",
             "|---|---|---|---|---|---|---|---|"]
    for name, r in sorted(report["per_rule"].items(), key=lambda kv: -kv[1]["measured_s"]):
        lines.append(f"| {name} | {r['jobs']} | {r['measured_s']} | {r['predicted_s']} | {r['error']:+.1%} | "
                     f"{r['median_job_error']:+.1%} | {r['jobs_within_30pct']} | {r['inside_low_high']} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configfile", nargs="+", required=True, help="the config files to price (merged in order)")
    parser.add_argument("--fractions", nargs="+", type=float, default=[0.0025, 0.01, 0.04],
                        help="calibration sizes, as fractions of each data set's training queries")
    parser.add_argument("--held-out", type=float, help="one more size, predicted from the others and measured")
    parser.add_argument("--full", type=float,
                        help="the one fraction whose run has every job of the config, on every data set (default: the "
                        "middle of --fractions); the other runs, and the held-out one, are lean (calibration_config)")
    parser.add_argument("--lean-datasets", nargs="+",
                        help="the data sets of the lean runs (default: all); the others are measured at --full only")
    parser.add_argument("--sizes", nargs="+", default=[], metavar="DATASET=NAME",
                        help="absent data sets' published sizes (as ltrbv plan --sizes)")
    parser.add_argument("--caps", nargs="+", default=[], metavar="KIND=TREES",
                        help=f"trees per learner kind (default {' '.join(f'{k}={v}' for k, v in DEFAULT_CAPS.items())})")
    parser.add_argument("--out", default=str(REPO / "results" / "calibration"))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--rerun", action="store_true", help="redo runs whose folder holds a finished run")
    args = parser.parse_args()
    mapping = dict(pair.split("=", 1) for pair in args.sizes)
    caps = {**DEFAULT_CAPS, **{k: int(v) for k, v in (pair.split("=", 1) for pair in args.caps)}}
    config = merged_config([str(Path(p).resolve()) for p in args.configfile])
    out = Path(args.out).resolve()
    runs = []
    full = args.full if args.full is not None else sorted(args.fractions)[len(args.fractions) // 2]
    warm_up(out, calibration_config(config, min(args.fractions), mapping, caps))
    for fraction in args.fractions:
        folder = out / f"f{fraction:g}"
        lean = fraction != full
        run_config = calibration_config(config, fraction, mapping, caps, datasets=args.lean_datasets if lean else None,
                                        lean=lean)
        info = calibration_run(folder, run_config, args.cores, args.rerun)
        print(f"f={fraction:g}: {info['tree_cpu_s']} CPU-s, wall {info['wall_s']} s, load {info['load_before']} -> "
              f"{info['load_after']}" + (f", FAILED jobs: {info.get('failed')}" if info["returncode"] else ""))
        runs.append(folder)
    if args.held_out:
        folder = out / f"heldout-f{args.held_out:g}"
        run_config = calibration_config(config, args.held_out, mapping, caps, args.lean_datasets, lean=True)
        info = calibration_run(folder, run_config, args.cores, args.rerun)
        print(f"held-out f={args.held_out:g}: {info['tree_cpu_s']} CPU-s, wall {info['wall_s']} s, load "
              f"{info['load_before']} -> {info['load_after']}")
        report = validate(runs, folder)
        (out / "validation.json").write_text(json.dumps(report, indent=2) + "\n")
        (out / "validation.md").write_text(markdown(report))
        print(markdown(report))
    print("price a plan with: ltrbv plan --configfile ... --placeholders --calibration "
          + " ".join(str(r) for r in runs) + (" " + " ".join(f"--sizes {s}" for s in args.sizes) if args.sizes else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
