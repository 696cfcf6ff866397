"""The workflow's paths: each template spelled once (ltrbv.workflow.paths), scripts that never build or parse one,
and the rules' outputs taken from the templates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ltrbv.workflow import paths
from ltrbv.workflow.sections import SECTIONS

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "src" / "scripts").glob("*/*.py"))
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


#: where a template may be spelled: the shared ones in paths, a section's own in its grid (module-level constants)
TEMPLATE_MODULES = [Path(paths.__file__), *(Path(section.grid.__file__) for section in SECTIONS)]


def _module_constants(path: Path) -> list[int]:
    """The lines of a module's top-level assignments to UPPER_CASE names (where templates live)."""
    import ast

    tree = ast.parse(path.read_text())
    lines = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets):
            lines += range(node.lineno, node.end_lineno + 1)
    return lines


@pytest.mark.parametrize("source", CODE, ids=[str(p.relative_to(REPO)) for p in CODE])
def test_every_results_path_is_spelled_as_a_template_of_paths_or_of_a_section_grid(source):
    allowed = set(_module_constants(source)) if source in TEMPLATE_MODULES else set()
    for number, code in _code_lines(source):
        if number in allowed:
            continue
        assert not _PATH_LITERAL.search(code), f"{source.relative_to(REPO)}:{number} spells a path: {code.strip()}"


def test_each_template_is_defined_once():
    templates = {f"paths.{name}": value for name, value in vars(paths).items()
                 if name.isupper() and not name.startswith("_") and isinstance(value, str)}
    for section in SECTIONS:
        templates.update({f"{section.name}.{name}": value for name, value in vars(section.grid).items()
                          if name.isupper() and isinstance(value, str) and value.startswith(paths.RESULTS + "/")
                          and getattr(paths, name, None) is not value})  # imported from paths: not its own
    tails = [value for name, value in templates.items()
             if name not in ("paths.RESULTS", "paths.SEED_RUN", "paths.TRIAL_RUN", "paths.DATASET")]
    assert len(tails) == len(set(tails)), "two names for one template"
    for value in tails:
        assert value.startswith(paths.DATASET + "/") or value.startswith(paths.RESULTS + "/"), value


def test_fill_keeps_the_other_wildcards():
    template = paths.fill(paths.PREDICTION, run=paths.SEED_RUN, file="test.scores")
    assert template == "results/{dataset}/predictions/{learner}/{fold}/seed{seed}/test.scores"
    assert paths.wildcards(template) == ["dataset", "learner", "fold", "seed"]
    jobs = SECTIONS.jobs()
    assert paths.log(jobs["train_model"]) == "results/{dataset}/logs/train_model/{learner}/{fold}/seed{seed}.log"
    assert paths.log(jobs["evaluate"]) == "results/{dataset}/logs/evaluate/{learner}.log"


def test_each_rule_names_its_jobs_once_in_its_section_and_plan_reads_them_back():
    """Every rule of a section's rules file has its job name in that section's JOBS (and no other section's), every
    job name there has a rule, and a job name is never written in a rule."""
    import re

    from ltrbv.sections.catalog.kinds import WITH_JOB

    for section in SECTIONS:
        rules = (REPO / section.rules).read_text()
        named = set(re.findall(r'\b(?:log|benchmark)\("(\w+)"\)', rules))
        named |= set(re.findall(r'JOBS\["(\w+)"\]', rules))
        # the study's training rules are written once, in a loop over the schemes
        named |= {f"{stem}_{scheme}" for stem in re.findall(r'\b(?:log|benchmark)\(f"(\w+)_\{_scheme\}"\)', rules)
                  for scheme in ("bootstrap", "twofold")}
        # so are the catalog's entry rules, in a loop over the kinds
        named |= {f"{stem}_{kind}" for stem in re.findall(r'\b(?:log|benchmark)\(f"(\w+)_\{_kind\}"\)', rules)
                  for kind in WITH_JOB}
        assert named == set(section.jobs), section.name
        assert not re.search(r'\b(?:log|benchmark)\("[^"]*/', rules), "a job template written in a rule"
    jobs = SECTIONS.jobs()
    assert paths.parse_job("train_biasvar_bootstrap/rf-point/Fold1/subsample=0.3", jobs) == (
        "train_biasvar_bootstrap", {"learner": "rf-point", "fold": "Fold1", "setting": "subsample=0.3"})
    assert paths.parse_job("train_model/lm/Fold1/seed2", jobs) == (
        "train_model", {"learner": "lm", "fold": "Fold1", "seed": "2"})
    assert paths.parse_job("evaluate/lm", jobs) == ("evaluate", {"learner": "lm"})
    assert paths.parse_job("biasvar_tables", jobs) == ("biasvar_tables", {})
    assert paths.parse_job("train_model/lm/Fold1", jobs) is None and paths.parse_job("nope/x", jobs) is None


def test_run_names_are_read_back_in_one_place():
    assert paths.run_seed_keys(paths.seed_run(3)) == ("3",)
    assert paths.run_seed_keys(paths.trial_run(2)) == ("trial2",)
    assert paths.run_replicate("seed12") == 12 and paths.run_replicate("trial1") is None
    assert paths.run_trial(paths.trial_run(12)) == "12" and paths.run_trial(paths.seed_run(2)) is None
