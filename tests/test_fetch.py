"""Fetching a data set's public archive (ltrbv.data.fetch and the workflow's rule fetch_<dataset>), served by a
local HTTP server on the loopback address: no outside network."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from ltrbv.data.fetch import FetchError, fetch_archive

N_FEATURES = 6


def letor_lines(fold: int, split: str) -> str:
    first = {"train": 1, "vali": 101, "test": 201}[split] + 1000 * fold
    return "".join(f"{(q + d) % 3} qid:{q} " + " ".join(f"{j}:{(q * d + j) % 7 / 7:.3f}" for j in range(1, N_FEATURES + 1))
                   + f" #docid = d{q}-{d}\n" for q in range(first, first + 20) for d in range(4))


def release_files(top: str = "REL") -> dict[str, bytes]:
    return {f"{top}/Fold{f}/{s}.txt": letor_lines(f, s).encode() for f in (1, 2) for s in ("train", "vali", "test")}


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def tarred(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


ARCHIVES = {"/rel.zip": zipped(release_files()), "/rel.tar.gz": tarred(release_files()),
            "/escape.zip": zipped({"../outside.txt": b"x\n"})}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Handler(BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        Handler.requests.append(self.path)
        if self.path == "/truncated.zip":  # announces the whole archive, sends half of it, hangs up
            data = ARCHIVES["/rel.zip"]
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        data = ARCHIVES.get(self.path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    """An HTTP server on 127.0.0.1 (a free port) for this module's tests; it stops after them, or by itself
    after 10 minutes at the latest."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    deadline = threading.Timer(600, httpd.shutdown)
    deadline.daemon = True
    deadline.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    deadline.cancel()
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) if folder.exists() else []


EXPECTED = [f"REL/Fold{f}/{s}.txt" for f in (1, 2) for s in ("train", "vali", "test")]


@pytest.mark.parametrize("name,fmt", [("/rel.zip", "zip"), ("/rel.tar.gz", "tar.gz")])
def test_a_good_archive_is_checked_and_unpacked(server, tmp_path, name, fmt):
    dest = tmp_path / "results" / "rel" / "download"
    fetched = fetch_archive(server + name, sha(ARCHIVES[name]), fmt, dest, expected=EXPECTED)
    assert fetched["bytes"] == len(ARCHIVES[name]) and fetched["files"] == sorted(EXPECTED)
    for relative, data in release_files().items():
        assert (dest / relative).read_bytes() == data
    assert leftovers(dest.parent) == sorted(["download", "download/REL", "download/REL/Fold1", "download/REL/Fold2",
                                             *[f"download/{f}" for f in EXPECTED]])  # no download or scratch left


def test_a_wrong_digest_is_refused_and_nothing_is_left(server, tmp_path):
    dest = tmp_path / "results" / "rel" / "download"
    wrong = sha(b"another archive")
    with pytest.raises(FetchError) as error:
        fetch_archive(server + "/rel.zip", wrong, "zip", dest, expected=EXPECTED)
    assert str(error.value) == (f"{server}/rel.zip: sha256 {sha(ARCHIVES['/rel.zip'])} of the download "
                                f"({len(ARCHIVES['/rel.zip'])} bytes), expected {wrong}; refused (nothing kept)")
    assert leftovers(dest.parent) == []


def test_a_truncated_download_is_refused_and_nothing_is_left(server, tmp_path):
    dest = tmp_path / "results" / "rel" / "download"
    with pytest.raises(FetchError, match=r"/truncated\.zip: truncated download"):
        fetch_archive(server + "/truncated.zip", sha(ARCHIVES["/rel.zip"]), "zip", dest, expected=EXPECTED)
    assert leftovers(dest.parent) == []


def test_an_unknown_format_is_refused_before_any_download(server, tmp_path):
    before = len(Handler.requests)
    with pytest.raises(FetchError, match=r"format 'rar': not one of zip, tar, tar.gz, tar.bz2, tar.xz"):
        fetch_archive(server + "/rel.zip", sha(ARCHIVES["/rel.zip"]), "rar", tmp_path / "d")
    assert len(Handler.requests) == before and leftovers(tmp_path) == []


def test_members_escaping_the_folder_and_missing_files_are_refused(server, tmp_path):
    dest = tmp_path / "results" / "x" / "download"
    with pytest.raises(FetchError, match=r"member '\.\./outside\.txt' would be written outside"):
        fetch_archive(server + "/escape.zip", sha(ARCHIVES["/escape.zip"]), "zip", dest)
    with pytest.raises(FetchError, match=r"the archive lacks REL/Fold3/train\.txt \(it holds e\.g\. REL/Fold1/test"):
        fetch_archive(server + "/rel.zip", sha(ARCHIVES["/rel.zip"]), "zip", dest, expected=["REL/Fold3/train.txt"])
    with pytest.raises(FetchError, match=r"HTTP Error 404"):
        fetch_archive(server + "/nothing.zip", sha(b""), "zip", dest)
    assert leftovers(tmp_path) == ["results", "results/x"]


# -- the workflow rule ----------------------------------------------------------------------------------------------

def fetch_config(url: str, digest: str, root: str = "results/rel/download/REL") -> dict:
    return {"seed": 1, "run": {"datasets": ["rel"], "learners": ["lm"], "seeds": [1]}, "metrics": ["ndcg@10"],
            "datasets": {"rel": {"root": root, "folds": ["Fold1", "Fold2"], "n_features": N_FEATURES,
                                 "label_range": [0, 2], "conventions": ["standard"],
                                 "fetch": {"url": url, "sha256": digest, "format": "zip"}}},
            "learners": {"lm": {"kind": "xgboost", "params": {"n_estimators": 5}}}}


def snakemake(workdir: Path, config: dict, *targets: str) -> subprocess.CompletedProcess:
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory",
                           str(workdir), "--configfile", str(workdir / "config.yaml"), "--cores", "1", "--nocolor",
                           *targets], capture_output=True, text=True, timeout=600)


def test_the_fetch_rule_fetches_checks_and_unpacks_into_results(server, tmp_path):
    """The parsed caches of a fetched dataset are made from the archive's files; a wrong digest fails the job and
    leaves nothing behind."""
    digest = sha(ARCHIVES["/rel.zip"])
    done = snakemake(tmp_path, fetch_config(server + "/rel.zip", digest), "results/rel/parsed/Fold2/test.npz")
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((tmp_path / "results/rel/download.json").read_text())
    assert record["sha256"] == digest and record["files"] == sorted(EXPECTED)
    for relative, data in release_files().items():
        assert (tmp_path / "results/rel/download" / relative).read_bytes() == data
    from ltrbv.data.cache import load_cache

    parsed = load_cache(tmp_path / "results/rel/parsed/Fold2/test.npz")
    assert parsed.n_queries == 20 and parsed.n_docs == 80 and list(parsed.qids[:2]) == ["2201", "2202"]

    other = tmp_path / "bad"
    other.mkdir()
    failed = snakemake(other, fetch_config(server + "/rel.zip", sha(b"x")), "results/rel/parsed/Fold1/train.npz")
    assert failed.returncode != 0
    log = (other / "results/rel/logs/fetch_dataset.log").read_text()
    assert f"sha256 {digest} of the download" in log and "refused (nothing kept)" in log
    assert not (other / "results/rel/download").exists() and not (other / "results/rel/download.json").exists()
    assert [p.name for p in (other / "results/rel").iterdir() if p.name not in ("logs", "benchmarks")] == []


def test_a_fetched_root_outside_its_download_folder_is_refused_before_any_job(server, tmp_path):
    from ltrbv.workflow.config_checks import ConfigError, check_config

    config = fetch_config(server + "/rel.zip", sha(ARCHIVES["/rel.zip"]), root="/data/REL")
    with pytest.raises(ConfigError, match=r"datasets\.rel\.root '/data/REL': a fetched dataset is unpacked into "
                                          r"'results/rel/download' \(nothing is written outside results/\)"):
        check_config(config)
    config = fetch_config(server + "/rel.zip", "ABC")
    with pytest.raises(ConfigError, match=r"datasets\.rel\.fetch\.sha256: 'ABC' is not the archive's SHA-256 "
                                          r"\(lowercase hex\)"):
        check_config(config)  # the schema's check
    assert check_config(fetch_config(server + "/rel.zip", sha(ARCHIVES["/rel.zip"])))  # files absent: fetched
