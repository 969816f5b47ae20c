"""The trec_eval 9.0.4 command-line program, as Pyserini's users run it.

trec_eval's own source is in no reachable package registry, but the Pyserini sdist on
PyPI carries Anserini's fat jar, and the jar carries jtreceval's prebuilt trec_eval
binaries: ``python -m pyserini.eval.trec_eval`` runs exactly that file (through
jtreceval). The suite extracts the Linux x86-64 one with :mod:`zipfile` (no JVM, no
build) and caches it under :data:`cf_refs.CACHE`; the 165 MB sdist is downloaded once
(``pip download``), checked against its pinned sha256, and deleted after extraction.

trec_eval prints ``%6.4f`` (4 decimals) and 9.0.4 has no option for more digits
(``trec_eval -h``), so comparisons carry a tolerance of half a unit in the 4th decimal.
"""

from __future__ import annotations

import hashlib
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import cf_refs
from cf_refs import Ref

PYSERINI = "pyserini"
PYSERINI_VERSION = "1.6.0"
#: sha256 of pyserini-1.6.0.tar.gz as PyPI serves it
PYSERINI_SHA256 = "e34761d700b33613c26bc61113effc6d65598dee6ada28a33214f79350f833f4"
JAR = f"pyserini-{PYSERINI_VERSION}/pyserini/resources/jars/anserini-1.7.1-fatjar.jar"
MEMBER = "trec_eval/trec_eval-linux-amd64"
#: sha256 of the extracted binary (so a changed jar cannot slip in under the same name)
BINARY_SHA256 = "a282ee9c22966f306c4bcbbfda9142ff22f371012a2994782194e6afdadbe6e4"
VERSION = "9.0.4"

SOURCE = (f"trec_eval {VERSION} binary ({MEMBER} in {JAR.split('/', 1)[1]} of the {PYSERINI} "
          f"{PYSERINI_VERSION} sdist from PyPI, sha256 {PYSERINI_SHA256[:12]}...; what "
          "pyserini.eval.trec_eval runs)")

#: trec_eval 9.0.4 -> 9.0.8, read in usnistgov/trec_eval (v9.0.4 d63f5c4b..v9.0.8 d95ca64e, the tag
#: whose archive pytrec_eval-terrier 0.5.11 builds: archive/v9.0.8.tar.gz): no m_*.c, meas_*.c,
#: measures.c, form_res_rels.c, trec_format.h or trec_eval.h change. get_qrels.c reads the file with
#: fopen/fseek/ftell/fread instead of open/lseek/read (25aeb26, fd803bb, 5f41c8a, 8c33f74; the
#: parsing is untouched), get_trec_results.c drops a (caddr_t) cast (c0f1a67), trec_eval.c declares
#: the te_num_* counters int as defined (8c56e93); the rest is Windows/Cygwin build support. The
#: later tag trec_eval-9.0.8 (d4dd9d9c, 2023) also has fa69fd77 "Convert float to double" (scores
#: and measures as double, trec_eval 10.0's behaviour): not what pytrec_eval builds.
UNCHANGED_TO_908 = ("ndcg code unchanged 9.0.4 to 9.0.8 (usnistgov/trec_eval v9.0.4 d63f5c4b..v9.0.8 d95ca64e: "
                    "no m_*.c, meas_*.c, form_res_rels.c or trec_format.h change; get_qrels.c reads with "
                    "fread, same parsing, 25aeb26/fd803bb/8c33f74; trec_eval.c int counters, 8c56e93)")


class TrecEvalUnavailable(RuntimeError):
    """The binary cannot be obtained or run here (a clear failure, never a skip)."""


def _fail(msg: str) -> TrecEvalUnavailable:
    return TrecEvalUnavailable(f"trec_eval {VERSION} reference: {msg}")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_CHECKED: dict = {}  # the binary whose sha256 was checked in this process


def binary() -> Path:
    """Path of the cached trec_eval 9.0.4 binary; downloads and extracts it on first use.

    :raises TrecEvalUnavailable: not Linux x86-64, ``pip download`` failed, or a sha256
        differs from the pinned one.
    """
    if sys.platform != "linux" or platform.machine().lower() not in ("x86_64", "amd64"):
        raise _fail(f"the suite runs the Linux x86-64 binary ({MEMBER}); this machine is "
                    f"{sys.platform}/{platform.machine()}")
    folder = cf_refs.CACHE / f"trec_eval-{VERSION}-pyserini-{PYSERINI_VERSION}"
    exe = folder / "trec_eval"
    if _CHECKED.get("exe") == exe:
        return exe
    if exe.exists() and _sha256(exe) == BINARY_SHA256:
        _CHECKED["exe"] = exe
        return exe
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cf-pyserini-", dir=folder) as tmp:
        got = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                              "--no-binary", ":all:", "--dest", tmp, f"{PYSERINI}=={PYSERINI_VERSION}"],
                             capture_output=True, text=True)
        sdist = Path(tmp) / f"{PYSERINI}-{PYSERINI_VERSION}.tar.gz"
        if got.returncode != 0 or not sdist.exists():
            raise _fail(f"pip download {PYSERINI}=={PYSERINI_VERSION} failed (PyPI is needed once; the "
                        f"binary is then cached in {folder}):\n{got.stderr.strip()[-2000:]}")
        if _sha256(sdist) != PYSERINI_SHA256:
            raise _fail(f"{sdist.name} has sha256 {_sha256(sdist)}, expected {PYSERINI_SHA256}")
        try:
            with tarfile.open(sdist) as tar, zipfile.ZipFile(tar.extractfile(JAR)) as z:
                data = z.read(MEMBER)
        except KeyError as exc:
            raise _fail(f"{sdist.name}: {exc.args[0]}") from exc
    if hashlib.sha256(data).hexdigest() != BINARY_SHA256:
        raise _fail(f"{MEMBER} has sha256 {hashlib.sha256(data).hexdigest()}, expected {BINARY_SHA256}")
    part = folder / "trec_eval.part"
    part.write_bytes(data)
    part.chmod(0o755)
    part.replace(exe)
    out = subprocess.run([str(exe), "-v"], capture_output=True, text=True)
    if f"trec_eval version {VERSION}" not in out.stdout + out.stderr:
        raise _fail(f"{exe} -v printed {out.stdout + out.stderr!r}")
    _CHECKED["exe"] = exe
    return exe


def parse(text: str, name: str) -> tuple[dict, float | None]:
    """``trec_eval -q`` output -> (``{qid: value}``, the ``all`` line's mean) for ``name``."""
    per_query, mean = {}, None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == name:
            if parts[1] == "all":
                mean = float(parts[2])
            else:
                per_query[parts[1]] = float(parts[2])
    return per_query, mean


_OUT: dict = {}


def run(case, measure: str, flags: tuple = ()) -> str:
    """``trec_eval -q -m <measure> [flags] qrels run`` on ``case`` written as TREC files."""
    key = (case.name, measure, tuple(flags))  # a case name names one content
    if key not in _OUT:
        folder = Path(tempfile.mkdtemp(prefix="cf-trec_eval-"))
        try:
            qp, rp = case.write(folder)
            cmd = [str(binary()), "-q", "-m", measure, *flags, str(qp), str(rp)]
            got = subprocess.run(cmd, capture_output=True, text=True)
            if got.returncode != 0:
                raise AssertionError(f"{' '.join(cmd)} exited {got.returncode}: {got.stderr.strip()}")
            _OUT[key] = got.stdout
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return _OUT[key]


#: measures whose cutoffs are parameters (``ndcg_cut_5`` is ``-m ndcg_cut.5``)
_CUT = ("ndcg_cut", "P", "map_cut", "recall")


def measure_arg(name: str) -> str:
    head, _, cut = name.rpartition("_")
    return f"{head}.{cut}" if cut.isdigit() and head in _CUT else name


def trec_eval(measure: str, flags: tuple = ()):
    """The binary as a conformance reference: ``measure`` as trec_eval prints it
    (``ndcg_cut_{k}``); per query from ``-q`` and trec_eval's own ``all`` mean."""
    def ref(case, k=None) -> Ref:
        name = measure.format(k=k)
        per_query, mean = parse(run(case, measure_arg(name), flags), name)
        return Ref(per_query, mean)
    return ref
