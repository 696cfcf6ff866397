"""``ltrbv data verify ROOT``: which known data set a folder holds, and whether its files are intact.

1. Recognition (:func:`recognise`): the shipped manifests (:mod:`ltrbv.data.manifest`) whose file names occur
   under ROOT are the candidates; the one whose files' SHA-256 equal its digests (published, or recorded at
   first use) wins; without a digest match, a complete layout narrowed by the feature count of the first data
   line and then by the folder's name; still several: ambiguous (say which with ``--dataset``).  A folder
   with none of the known file names is unknown, reported with the closest known layout.
2. Comparison (:func:`verify`): every file of the manifest is ``missing``, ``changed`` (its digest differs
   from the published one, or from the one recorded at first use) or intact; files under ROOT that the
   manifest does not name are ``extra`` (listed, not an error).
3. Where no published checksum is known, the digests seen on the first verification without a missing or
   changed file are recorded in a user-level file (:func:`record_file`: ``$XDG_CACHE_HOME/ltrbv/digests``,
   never inside the package or the data folder) and later runs compare against them.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .manifest import Manifest, known_manifests, manifest_named


def sha256_file(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def files_under(root: Path) -> list[str]:
    """Every file below ``root``, as posix paths relative to it, sorted."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def record_file(name: str) -> Path:
    """The user-level file of the digests seen at a data set's first verified use."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ltrbv" / "digests" / f"{name}.json"


def recorded_digests(name: str) -> dict[str, dict]:
    path = record_file(name)
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text())["files"]
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a digest record of ltrbv ({error}); move it away to record anew") from None


def _write_record(manifest: Manifest, root: Path, seen: dict[str, str]) -> Path:
    path = record_file(manifest.name)
    entries = recorded_digests(manifest.name)
    today = datetime.date.today().isoformat()
    entries.update({f: {"sha256": seen[f], "recorded": today, "root": str(root.resolve())} for f in sorted(seen)})
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".json.tmp")
    scratch.write_text(json.dumps({"dataset": manifest.name, "files": entries}, indent=1, sort_keys=True) + "\n")
    scratch.replace(path)
    return path


def expected_digest(manifest: Manifest, relative: str) -> tuple[str | None, str]:
    """(digest, what it is) of one manifest file: published, recorded at first use, or (None, '') unknown."""
    published = manifest.digests[relative]
    if published is not None:
        return published, "published"
    entry = recorded_digests(manifest.name).get(relative)
    if entry is None:
        return None, ""
    return entry["sha256"], f"recorded at first use on {entry['recorded']} ({record_file(manifest.name)})"


# -- recognition -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Recognition:
    manifest: Manifest | None
    #: several manifests fit equally (ambiguous) when ``manifest`` is None and this is not empty
    candidates: tuple[str, ...] = ()
    #: for an unknown folder: the closest known layout and why
    closest: str = ""


def _first_line_width(path: Path) -> int | None:
    """The largest feature index on the first line of a LETOR file (None when it has none)."""
    with open(path, "rb") as handle:
        line = handle.readline(1 << 20).split(b"#", 1)[0].decode("ascii", "replace")
    indices = [int(m) for m in re.findall(r"(?:^|\s)(\d+):", line)]
    return max(indices) if indices else None


def _digest_hits(manifest: Manifest, present: set[str], digest_of) -> int:
    hits = 0
    for relative in manifest.digests:
        expected, _ = expected_digest(manifest, relative)
        if relative in present and expected is not None and digest_of(relative) == expected:
            hits += 1
    return hits


def _fits(manifest: Manifest, width: int | None) -> bool:
    """Whether a first data line with features up to ``width`` can belong to the data set."""
    if width is None:
        return False
    return width <= manifest.n_features if manifest.sparse else width == manifest.n_features


def _narrow(pool: list[Manifest], root: Path, present: set[str]) -> tuple[list[Manifest], str]:
    """Among complete layouts without a digest match: those whose feature count fits the first data line,
    then those named like the folder; the reason when none fits."""
    sample = min(f for m in pool for f in m.digests)
    width = _first_line_width(root / sample)
    fitting = [m for m in pool if _fits(m, width)]
    if not fitting:
        names = ", ".join(f"{m.name} ({m.n_features} features)" for m in pool)
        return [], (f"{names}: the same file names, but the first line of {sample} has "
                    + (f"features up to {width}" if width else "no features"))
    folder = root.resolve().name.lower()
    named = [m for m in fitting if folder == m.name.lower() or folder in m.aliases]
    return named or fitting, ""


def _partial(candidates: list[Manifest], present: set[str]) -> str:
    best = max(candidates, key=lambda m: (len(present & set(m.digests)), -len(m.digests)))
    missing = sorted(set(best.digests) - present)
    return (f"{best.name} ({len(best.digests) - len(missing)} of its {len(best.digests)} files; missing: "
            f"{', '.join(missing[:4])}{', ...' if len(missing) > 4 else ''})")


def _closest(present: set[str], root: Path) -> str:
    """The known layout closest to a folder with none of the known file names, and a hint."""
    def score(manifest: Manifest) -> tuple[int, int]:
        below = sum(any(f.endswith("/" + m) for f in present) for m in manifest.digests)
        names = sum(any(Path(f).name == Path(m).name for f in present) for m in manifest.digests)
        return below, names

    if not present:
        return "none: ROOT holds no files"
    best = max(known_manifests(), key=lambda m: (score(m), -len(m.digests)))
    below, names = score(best)
    if below:
        inner = sorted({f[: -len(m) - 1] for f in present for m in best.digests if f.endswith("/" + m)})
        return f"{best.name}: its files sit in a folder below ROOT ({', '.join(inner[:3])}); verify {root / inner[0]}"
    if names:
        return f"{best.name} ({names} of its {len(best.digests)} file names occur, in other folders)"
    return f"{best.name} (none of its file names occur; expected e.g. {', '.join(list(best.digests)[:3])})"


def recognise(root: Path, present: set[str], digest_of) -> Recognition:
    candidates = [m for m in known_manifests() if present & set(m.digests)]
    if not candidates:
        return Recognition(None, closest=_closest(present, root))
    hits = {m.name: _digest_hits(m, present, digest_of) for m in candidates}
    most = max(hits.values())
    if most:
        best = [m for m in candidates if hits[m.name] == most]
    else:
        complete = [m for m in candidates if set(m.digests) <= present]
        if not complete:
            return Recognition(None, closest=_partial(candidates, present))
        best, why = _narrow(complete, root, present)
        if not best:
            return Recognition(None, closest=why)
    if len(best) == 1:
        return Recognition(best[0])
    return Recognition(None, candidates=tuple(m.name for m in best))


# -- verification ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Changed:
    path: str
    seen: str
    expected: str
    against: str


@dataclass(frozen=True)
class Verification:
    root: Path
    recognition: Recognition
    missing: tuple[str, ...] = ()
    changed: tuple[Changed, ...] = ()
    extra: tuple[str, ...] = ()
    #: intact files checked against published digests / against digests recorded at first use
    published_ok: int = 0
    recorded_ok: int = 0
    #: files without a known digest: recorded now (``record`` says where), or left unrecorded
    unknown: tuple[str, ...] = ()
    record: Path | None = None
    digests: dict = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return self.recognition.manifest is not None and not self.missing and not self.changed


def verify(root: str | os.PathLike, dataset: str | None = None, record: bool = True) -> Verification:
    """Recognise the data set under ``root`` (or take ``dataset``) and compare its files with the manifest."""
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"{root}: not a folder")
    present = set(files_under(root))
    seen: dict[str, str] = {}

    def digest_of(relative: str) -> str:
        if relative not in seen:
            seen[relative] = sha256_file(root / relative)
        return seen[relative]

    recognition = Recognition(manifest_named(dataset)) if dataset else recognise(root, present, digest_of)
    manifest = recognition.manifest
    if manifest is None:
        return Verification(root, recognition)
    missing, changed, unknown, counts = [], [], [], {"published": 0, "recorded": 0}
    for relative in manifest.digests:
        if relative not in present:
            missing.append(relative)
            continue
        expected, against = expected_digest(manifest, relative)
        if expected is None:
            unknown.append(relative)
            digest_of(relative)
        elif digest_of(relative) != expected:
            changed.append(Changed(relative, digest_of(relative), expected, against))
        else:
            counts["published" if against == "published" else "recorded"] += 1
    written = None
    if record and unknown and not missing and not changed:
        written = _write_record(manifest, root, {f: seen[f] for f in unknown})
    return Verification(root, recognition, tuple(missing), tuple(changed),
                        tuple(sorted(present - set(manifest.digests))), counts["published"], counts["recorded"],
                        tuple(unknown), written, dict(seen))


def report_lines(result: Verification) -> list[str]:
    """What ``ltrbv data verify`` prints: the data set, every missing, changed and extra file, the verdict."""
    recognition, root = result.recognition, result.root
    if recognition.manifest is None:
        if recognition.candidates:
            return [f"{root}: ambiguous: the layout of {', '.join(recognition.candidates)} (no digest decides); "
                    f"say which with --dataset NAME"]
        return [f"{root}: unknown data set; closest known layout: {recognition.closest}"]
    manifest = recognition.manifest
    lines = [f"{root}: {manifest.name}, {manifest.title}"]
    lines += [f"missing: {path}" for path in result.missing]
    lines += [f"changed: {c.path}: sha256 {c.seen}, expected {c.expected} ({c.against})" for c in result.changed]
    lines += [f"extra (not in the {manifest.name} manifest, ignored): {path}" for path in result.extra]
    if result.published_ok:
        lines.append(f"{result.published_ok} file(s) equal the published digests ({manifest.digest_source})")
    if result.recorded_ok:
        lines.append(f"{result.recorded_ok} file(s) equal the digests recorded at first use in "
                     f"{record_file(manifest.name)} (no published checksum)")
    if result.unknown and result.record:
        lines.append(f"{len(result.unknown)} file(s) have no published checksum: the digests seen now are recorded "
                     f"in {result.record}, and later runs compare against them")
    elif result.unknown:
        lines.append(f"{len(result.unknown)} file(s) have no published checksum; nothing recorded "
                     f"(only a complete, unchanged copy is recorded)")
    if result.ok:
        lines.append(f"{manifest.name}: OK")
    else:
        lines.append(f"{manifest.name}: FAILED ({len(result.missing)} missing, {len(result.changed)} changed)")
    return lines
