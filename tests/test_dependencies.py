"""The declared dependencies: envs/ltrbv.yaml agrees with pyproject.toml, constraints.txt pins a version
inside every range, nothing is declared that no code imports (issue 16: pyarrow was), and CI installs
with the constraints what the README says."""

from __future__ import annotations

import re
import tomllib

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import REPO

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
EXTRAS = PROJECT["optional-dependencies"]
# pip name -> conda-forge name, where they differ
CONDA_NAMES = {"xgboost-cpu": "py-xgboost-cpu", "matplotlib": "matplotlib-base"}
# run Snakemake itself, outside the rule scripts' environment
NOT_IN_RULE_ENV = {"snakemake", "pygments"}
# distribution -> the module the code imports
IMPORT_NAMES = {"pyyaml": "yaml", "xgboost-cpu": "xgboost", "scikit-learn": "sklearn",
                "pytrec-eval-terrier": "pytrec_eval", "markdown-it-py": "markdown_it"}
# declared, and rightly imported by no file of this repository
NOT_IMPORTED = {"pygments": "snakemake --report highlights code with it",
                "snakemake-executor-plugin-slurm": "a plugin snakemake loads by name (--executor slurm)"}


def requirements(*groups, platform="linux"):
    """The requirements of the core (group None) and the named extras that apply on ``platform``, with
    the project's own extras (ltrbv[...]) expanded."""
    out, todo, seen = {}, list(groups), set()
    while todo:
        group = todo.pop()
        if group in seen:
            continue
        seen.add(group)
        for text in PROJECT["dependencies"] if group is None else EXTRAS[group]:
            requirement = Requirement(text)
            if requirement.name == "ltrbv":
                todo += sorted(requirement.extras)
            elif requirement.marker is None or requirement.marker.evaluate({"sys_platform": platform}):
                out[canonicalize_name(requirement.name)] = requirement.specifier
    return out


def test_conda_environment_lists_the_same_packages_and_bounds():
    env = yaml.safe_load((REPO / "envs" / "ltrbv.yaml").read_text())["dependencies"]
    listed = {}
    for entry in env:
        name, _, spec = entry.partition(" ")
        listed[name] = spec.replace(" ", "")
    assert listed.pop("python") == "=3.11"
    expected = {CONDA_NAMES.get(name, name): ",".join(sorted(str(s) for s in spec))
                for name, spec in requirements(None, "workflow", "svm").items() if name not in NOT_IN_RULE_ENV}
    assert {name: ",".join(sorted(spec.split(","))) for name, spec in listed.items()} == expected


def test_xgboost_is_the_cpu_build_on_linux_and_pyarrow_is_gone():
    linux, mac = requirements(None, "all", "test"), requirements(None, "all", "test", platform="darwin")
    assert "xgboost-cpu" in linux and "xgboost" not in linux
    assert "xgboost" in mac and "xgboost-cpu" not in mac and mac["xgboost"] == linux["xgboost-cpu"]
    assert "pyarrow" not in linux and "pyarrow" not in (REPO / "envs" / "ltrbv.yaml").read_text()
    core = requirements(None)
    assert set(core) == {"numpy", "scipy", "pandas", "numba", "pyyaml"}
    assert {"snakemake", "jsonschema", "matplotlib", "tqdm", "pygments"} <= set(requirements("workflow"))
    for name, spec in linux.items():
        assert any(s.operator in ("<", "<=", "==", "~=") for s in spec), f"{name} has no upper bound"


def test_every_declared_package_is_imported_somewhere():
    sources = [p for folder in ("src", "tests", "examples") for p in (REPO / folder).rglob("*.py")]
    sources += [REPO / "Snakefile", *(REPO / "rules").glob("*.smk")]
    text = "\n".join(p.read_text(encoding="utf-8") for p in sources)
    imported = set(re.findall(r"^\s*(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)", text, flags=re.M))
    declared = requirements(None, "all", "test") | requirements(None, "all", platform="darwin")
    for name in declared:
        if name in NOT_IMPORTED:
            continue
        module = IMPORT_NAMES.get(name, name.replace("-", "_"))
        assert module in imported, f"{name} is declared but no file imports {module}"


def test_constraints_pin_a_version_inside_every_range():
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not name==version"
            pins[canonicalize_name(name)] = Version(version)
    for platform in ("linux", "darwin"):
        for name, spec in requirements(None, "all", "test", platform=platform).items():
            assert name in pins, f"constraints.txt pins no version of {name}"
            assert pins[name] in spec, f"constraints.txt: {name}=={pins[name]} is outside {spec}"


def test_ci_installs_with_the_constraints_what_the_readme_says():
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    readme = (REPO / "README.md").read_text()
    [command] = [line.removesuffix(" || exit 1") for line in ci if line.startswith("pip install ")]
    assert ci[-1] == ".ci/readme_quickstart", "CI ends with the README's quick start in a bare venv"
    assert command.startswith("pip install ") and command.endswith("&& python -m pytest -q")
    assert f"\n{command}\n" in readme, "the README's test command differs from the one .ci/run runs"
    assert 'export PIP_CONSTRAINT="$PWD/constraints.txt"' in ci


BLOCK_EXTRAS = '''
import importlib.abc, sys
EXTRAS = {"snakemake", "jsonschema", "matplotlib", "tqdm", "pygments", "xgboost", "lightgbm", "sklearn",
          "pytrec_eval", "hypothesis", "pytest"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in EXTRAS:
            raise ImportError(f"No module named {name!r} (blocked: not in the core install)")
sys.meta_path.insert(0, Block())
'''


def test_the_core_install_evaluates_compares_and_decomposes_without_the_extras(tmp_path):
    """What a library user gets from ``pip install ltrbv`` (no extras): the notebook API and the
    evaluate / compare / biasvar commands; the plot asks for the plots extra."""
    import subprocess
    import sys

    script = BLOCK_EXTRAS + f'''
import numpy as np, ltrbv
from ltrbv.cli import main
from ltrbv.data.synthetic import SyntheticSpec, write_letor_split
test = write_letor_split({str(tmp_path / "test.txt")!r}, SyntheticSpec(n_queries=60, docs_per_query=8,
                         n_features=6, n_informative=3, n_query_level=1), 1, "test")
data = ltrbv.read_letor(test)
rng = np.random.default_rng(0)
paths = []
for i in range(3):
    paths.append(f"{tmp_path}/s{{i}}.scores")
    np.savetxt(paths[-1], rng.random(data.n_docs))
assert main(["evaluate", str(test), paths[0], "--metrics", "nDCG@10,AP"]) == 0
assert main(["compare", "--data", str(test), "--scores", *paths, "--permutations", "200", "--json"]) == 0
assert main(["biasvar", "--data", str(test), "--method", "bootstrap", "--scores", *paths, "--resamples", "50"]) == 0
assert main(["compare", "--data", str(test), "--scores", *paths, "--plot", "{tmp_path}/p.png"]) == 2
ltrbv.decompose(data, rng.random((3, data.n_docs)), "bootstrap")
print("CORE OK", sorted(m for m in ("matplotlib", "snakemake", "xgboost") if m in sys.modules))
'''
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "CORE OK []" in result.stdout
    assert "ltrbv compare: error: the per-query difference plot needs matplotlib: pip install 'ltrbv[plots]'" \
        in result.stderr


def test_each_prediction_records_the_version_of_the_xgboost_it_imported():
    """XGBoost is the distribution xgboost-cpu on Linux: provenance must find it under either name."""
    import xgboost

    from ltrbv.provenance import package_versions

    assert package_versions()["xgboost"] == xgboost.__version__
