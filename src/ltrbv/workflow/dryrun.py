"""Reading Snakemake's dry-run listing: the jobs it plans (rule and wildcards) and its "Job stats" table."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Job:
    rule: str
    wildcards: tuple = ()
    reason: str = field(default="", compare=False)
    #: the job's input files, its log and benchmark file, as the listing names them
    inputs: tuple = field(default=(), compare=False)
    log: str = field(default="", compare=False)
    benchmark: str = field(default="", compare=False)

    def get(self, name: str, default=None):
        return dict(self.wildcards).get(name, default)

    def __str__(self) -> str:
        wc = ",".join(f"{k}={v}" for k, v in self.wildcards)
        return f"{self.rule}({wc})"


_RULE = re.compile(r"^(?:local)?rule (\S+):\s*$")


def parse_jobs(output: str) -> list[Job]:
    """Jobs in Snakemake's dry-run listing ("rule NAME:" blocks with "wildcards:", "reason:", "input:", "log:" and
    "benchmark:" lines)."""
    jobs, current = [], None
    for line in output.splitlines() + [""]:
        match = _RULE.match(line)
        if match:
            current = {"rule": match.group(1)}
            continue
        if current is None:
            continue
        stripped = line.strip()
        if stripped.startswith("wildcards:"):
            pairs = [item.split("=", 1) for item in stripped[len("wildcards:"):].split(", ") if "=" in item]
            current["wildcards"] = tuple(sorted((k.strip(), v.strip()) for k, v in pairs))
        elif stripped.startswith("input:"):
            current["inputs"] = tuple(item.strip() for item in stripped[len("input:"):].split(", ") if item.strip())
        elif stripped.startswith(("reason:", "log:", "benchmark:")):
            name, _, value = stripped.partition(":")
            current[name] = value.strip()
        elif not line.startswith((" ", "\t")):
            jobs.append(Job(**current))
            current = None
    return jobs


def job_counts(output: str) -> dict[str, int]:
    """The "Job stats" table of a dry run: {rule: count, ..., 'total': n}."""
    counts, inside = {}, False
    for line in output.splitlines():
        if line.startswith("Job stats"):
            inside = True
            continue
        if inside:
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                counts[parts[0]] = int(parts[1])
                if parts[0] == "total":
                    break
    return counts
