"""Reference programs built from their released sources in ``../shared/references``.

trec_eval 9.0.8 and 10.0 are run as their users run them: built from the release
archives (``../shared/references/trec_eval/trec_eval-VERSION.tar.gz``, sha256 pinned
below, provenance in that folder's README) with ``make``, then run as
``trec_eval [flags] QRELS RUN``. Nothing is downloaded and nothing of trec_eval is in
the repository: the archive is unpacked and built once into a cache directory
(``$EVALKIT_REFERENCE_CACHE``, default ``~/.cache/evalkit-references``), guarded by a
file lock so that parallel test processes build it once.

A missing archive, compiler or ``make`` FAILS the calling test (never a skip): the
references are part of the unit layer.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
REFERENCES = REPO_ROOT.parent / "shared" / "references"

#: release -> sha256 of ``trec_eval-RELEASE.tar.gz`` (``../shared/references/trec_eval/README.md``)
TREC_EVAL_SHA256 = {
    "9.0.8": "bc9cd4039530576380665f32b6c5d372fe628055c875efb1e38c7572c1ef2ed9",
    "10.0": "195bcd403a658c99eb20c9df921705450b40f978665a9ccd34fedf8a55895800",
}
#: release -> upstream commit of the tag (usnistgov/trec_eval)
TREC_EVAL_COMMIT = {
    "9.0.8": "d95ca64e14a47d763ae349fb65e6d8cde4141dbd",
    "10.0": "f4253652c8efd0d86ddffd0d163cc0a0f813111a",
}


class ReferenceUnavailable(RuntimeError):
    """A reference program cannot be built or run here (a failure, never a skip)."""


def cache_dir() -> Path:
    root = os.environ.get("EVALKIT_REFERENCE_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "evalkit-references"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def trec_eval_source(version: str) -> Path:
    """``../shared/references/trec_eval/trec_eval-VERSION.tar.gz``, sha256 checked."""
    if version not in TREC_EVAL_SHA256:
        raise ReferenceUnavailable(f"trec_eval {version}: no pinned release (known: {', '.join(TREC_EVAL_SHA256)})")
    archive = REFERENCES / "trec_eval" / f"trec_eval-{version}.tar.gz"
    if not archive.is_file():
        raise ReferenceUnavailable(f"trec_eval {version}: release source not found at {archive} "
                                   "(../shared/references beside the checkout)")
    digest = _sha256(archive)
    if digest != TREC_EVAL_SHA256[version]:
        raise ReferenceUnavailable(f"trec_eval {version}: {archive} has sha256 {digest}, "
                                   f"expected {TREC_EVAL_SHA256[version]}")
    return archive


def trec_eval_binary(version: str) -> Path:
    """Path of trec_eval ``version`` (``"9.0.8"`` or ``"10.0"``) built from its release
    source; built on first use (a few seconds), then reused.

    :raises ReferenceUnavailable: the archive is missing or altered, or the build failed.
    """
    target = cache_dir() / f"trec_eval-{version}-{TREC_EVAL_SHA256[version][:12]}" \
        if version in TREC_EVAL_SHA256 else None
    if target is None:
        trec_eval_source(version)  # raises with the known releases
    binary = target / "trec_eval"
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    archive = trec_eval_source(version)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".trec_eval-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.is_file():
            return binary
        for tool in ("make", "cc"):
            if shutil.which(tool) is None:
                raise ReferenceUnavailable(f"trec_eval {version}: '{tool}' not found (a C compiler and make "
                                           "build it from ../shared/references/trec_eval)")
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            with tarfile.open(archive) as tar:
                tar.extractall(tmp, filter="data")
            src = Path(tmp) / f"trec_eval-{version}"
            done = subprocess.run(["make", "-C", str(src)], capture_output=True, text=True)
            if done.returncode != 0 or not (src / "trec_eval").is_file():
                raise ReferenceUnavailable(f"trec_eval {version}: make failed ({done.returncode}):\n"
                                           f"{done.stderr[-2000:]}")
            staged = Path(tmp) / "built"
            src.rename(staged)
            if target.exists():
                shutil.rmtree(target)
            staged.rename(target)
    return binary


def run_trec_eval(version: str, args: list[str], *, check: bool = True) -> subprocess.CompletedProcess:
    """``trec_eval ARGS`` of ``version``; output as text.

    :raises ReferenceUnavailable: as :func:`trec_eval_binary`; with ``check``, a
        non-zero exit (the message has trec_eval's stderr).
    """
    done = subprocess.run([str(trec_eval_binary(version)), *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise ReferenceUnavailable(f"trec_eval {version} {' '.join(map(str, args))}: exit {done.returncode}: "
                                   f"{done.stderr.strip()[:2000]}")
    return done


def parse_trec_eval_q(text: str) -> dict[tuple[str, str], str]:
    """``{(measure, qid): value text}`` of trec_eval ``-q`` output (``all`` included)."""
    out: dict[tuple[str, str], str] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3:
            out[(parts[0], parts[1])] = parts[2]
    return out
