"""The workflow's paths: each template spelled once (ltrbv.workflow.paths), scripts that never build or parse one,
and the rules' outputs taken from the templates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ltrbv.workflow import paths

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "src" / "scripts").glob("*.py"))
CODE = [*sorted((REPO / "src" / "ltrbv").rglob("*.py")), *sorted((REPO / "rules").glob("*.smk")), REPO / "Snakefile"]

# a results path in code: a string literal starting with results/ or holding a known folder of the tree
_PATH_LITERAL = re.compile(r"""["'](results/|[^"' ]*\b(predictions|parsed|bags|trials|reduced|samples|diagnostics)/\{)""")
_PARSING = re.compile(r"\.parts\b|\.parents?\b(?!\[1\]\)\s*\)?\s*#)|\.split\(\"/\"\)|\.stem\b")


def _code_lines(path: Path):
    """(number, line) of the code of a file, docstrings and comments left out."""
    text = path.read_text()
    text = re.sub(r'"""(.|\n)*?"""', lambda m: "\n" * m.group(0).count("\n"), text)
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        if code.strip():
            yield number, code


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_no_script_builds_or_parses_a_results_path(script):
    for number, code in _code_lines(script):
        if "snakemake.scriptdir" in code:
            continue  # the package beside the scripts folder, not a results path
        assert not _PATH_LITERAL.search(code), f"{script.name}:{number} builds a path: {code.strip()}"
        assert not _PARSING.search(code), f"{script.name}:{number} takes a path apart: {code.strip()}"
        # one unnamed input is input[0]; a list is read by name, never by its order
        assert not re.search(r"input\[[1-9]\d*\]|input\.\w+\[[1-9]\d*\]|zip\(.*input", code), \
            f"{script.name}:{number} reads an input by position: {code.strip()}"


@pytest.mark.parametrize("source", CODE, ids=[str(p.relative_to(REPO)) for p in CODE])
def test_every_results_path_is_spelled_in_the_paths_module_only(source):
    if source == Path(paths.__file__):
        return
    for number, code in _code_lines(source):
        assert not _PATH_LITERAL.search(code), f"{source.relative_to(REPO)}:{number} spells a path: {code.strip()}"


def test_each_template_is_defined_once():
    templates = {name: value for name, value in vars(paths).items() if name.isupper() and isinstance(value, str)}
    tails = [value for name, value in templates.items() if name not in ("RESULTS", "SEED_RUN", "TRIAL_RUN")]
    assert len(tails) == len(set(tails)), "two names for one template"
    for value in tails:
        assert value.startswith(paths.RESULTS + "/"), value


def test_fill_keeps_the_other_wildcards():
    template = paths.fill(paths.PREDICTION, run=paths.SEED_RUN, file="test.scores")
    assert template == "results/{dataset}/predictions/{learner}/{fold}/seed{seed}/test.scores"
    assert paths.wildcards(template) == ["dataset", "learner", "fold", "seed"]
    assert paths.log("train_model") == "results/{dataset}/logs/train_model/{learner}/{fold}/seed{seed}.log"
    assert paths.log("evaluate") == "results/{dataset}/logs/evaluate/{learner}.log"


def test_each_rule_names_its_jobs_once_and_plan_reads_them_back():
    import re

    from ltrbv.workflow import catalog_grid

    rules = "".join(p.read_text() for p in (REPO / "rules").glob("*.smk"))
    named = set(re.findall(r'\b(?:log|benchmark)\("(\w+)"\)', rules))
    # the study's training rules are written once, in a loop over the schemes
    named |= {f"{stem}_{scheme}" for stem in re.findall(r'\b(?:log|benchmark)\(f"(\w+)_\{_scheme\}"\)', rules)
              for scheme in ("bootstrap", "twofold")}
    # so are the catalog's two entry rules, in a loop over the kinds that train
    named |= {f"{stem}_{kind}" for stem in re.findall(r'\b(?:log|benchmark)\(f"(\w+)_\{_kind\}"\)', rules)
              for kind in catalog_grid.TRAINED}
    assert named == set(paths.JOBS)
    assert not re.search(r'\b(?:log|benchmark)\("[^"]*/', rules), "a job template written in a rule"
    assert paths.parse_job("train_biasvar_bootstrap/rf-point/Fold1/subsample=0.3") == (
        "train_biasvar_bootstrap", {"learner": "rf-point", "fold": "Fold1", "setting": "subsample=0.3"})
    assert paths.parse_job("train_model/lm/Fold1/seed2") == (
        "train_model", {"learner": "lm", "fold": "Fold1", "seed": "2"})
    assert paths.parse_job("evaluate/lm") == ("evaluate", {"learner": "lm"})
    assert paths.parse_job("biasvar_tables") == ("biasvar_tables", {})
    assert paths.parse_job("train_model/lm/Fold1") is None and paths.parse_job("nope/x") is None


def test_run_names_are_read_back_in_one_place():
    assert paths.run_seed_keys(paths.seed_run(3)) == ("3",)
    assert paths.run_seed_keys(paths.trial_run(2)) == ("trial2",)
    assert paths.run_replicate("seed12") == 12 and paths.run_replicate("trial1") is None
