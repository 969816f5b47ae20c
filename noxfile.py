"""The test environments: the unit layer and one session per family of heavy references.

``pip install "nox[uv]" && nox`` (nox with uv) runs every layer; ``nox -s unit`` runs the unit layer alone
(``nox -l`` lists the sessions; ``nox -s ltr -- -k xgboost`` passes arguments to pytest).

Each session makes its own virtualenv under ``.nox/`` and installs evalkit with the
references of its family, each with its own pins (``pyproject.toml``: the ``test`` extra
holds the light references of the unit layer, ``ref-*`` extras the heavy ones; CPU builds
only). Two references cannot share a process with evalkit (it needs numpy >= 1.24) and get
a second virtualenv of their own, made by their session, which the conformance suite runs
as a worker process: RecBole 1.2.1 (its metrics call ``np.float``, removed in numpy 1.24:
numpy 1.23.5 on Python 3.11) and allRank 1.4.3 (it pins torch <= 1.8.0, which has no wheel
for Python >= 3.10: torch 1.8.0 on Python 3.8). Sources a reference is built or imported
from (pyndeval's sdist for ndeval, pytorchltr's sdist) are downloaded when the session's
environment is made, into the reference cache; no test downloads anything.

Which tests belong to which layer is the table in ``tests/conftest.py`` (markers); what
each pin is and why, wall time and disk use: ``tests/conformance/README.md``.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
#: uv makes the environments and installs into them (pip's resolver took minutes per
#: environment); nox falls back to virtualenv + pip where uv is missing
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["unit", "conformance", "reports", "ltr", "torch", "torchrec", "recbole", "allrank",
                        "embeddings", "recsys", "lenskit", "spark"]
nox.options.error_on_missing_interpreters = True

#: where the reference programs are built and the reference sources downloaded to
#: (tests/reference_programs.py reads the same variable)
CACHE = Path(os.environ.get("EVALKIT_REFERENCE_CACHE") or Path.home() / ".cache" / "evalkit-references")
DOWNLOADS = CACHE / "downloads"

#: the worker environments' own pins (what ``pip install LIBRARY==VERSION`` resolves to, plus
#: the one pin that makes the library run: RecBole's np.float needs numpy < 1.24)
RECBOLE_WORKER = ["torch==2.13.0", "recbole==1.2.1", "numpy<1.24"]
ALLRANK_WORKER = ["allrank==1.4.3"]  # its own pins: torch==1.8.0, torchvision==0.9.0, gcsfs==0.6.2, ...
#: sources downloaded at install time: (requirement, pip download options)
PYNDEVAL_SDIST = "pyndeval==0.0.8"
PYTORCHLTR_SDIST = "pytorchltr==0.2.1"
#: installed after the ref-torchrec extra, which holds its requirements (fbgemm-gpu -> fbgemm-gpu-cpu)
TORCHREC = "torchrec==1.8.0"


def _uv_reads_pips_configuration() -> None:
    """uv does not read pip's configuration files: hand it pip's find-links, index URLs and
    constraints (``pip config list``; on this machine the CPU torch wheel lies in a find-links
    folder, without which uv would take a CUDA torch of about 3 GB from the registry).
    Variables already set win."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return
    conf: dict[str, str] = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        conf[key.rsplit(".", 1)[-1]] = value.strip().strip("'\"")
    for pip_key, uv_var in (("index-url", "UV_INDEX_URL"), ("extra-index-url", "UV_EXTRA_INDEX_URL"),
                            ("find-links", "UV_FIND_LINKS"), ("constraint", "UV_CONSTRAINT")):
        if conf.get(pip_key) and uv_var not in os.environ:
            os.environ[uv_var] = conf[pip_key]
    if conf.get("extra-index-url") and "UV_INDEX_STRATEGY" not in os.environ:
        os.environ["UV_INDEX_STRATEGY"] = "unsafe-best-match"  # pip's: the best version over every index


_uv_reads_pips_configuration()


def _env() -> dict:
    return {"EVALKIT_REFERENCE_CACHE": str(CACHE), "PYTHONHASHSEED": "0"}


def _install(session: nox.Session, *extras: str, extra_packages: tuple = ()) -> None:
    spec = "." if not extras else f".[{','.join(extras)}]"
    session.install("-e", spec, *extra_packages)


def _download_sdist(session: nox.Session, requirement: str) -> None:
    """``pip download --no-deps --no-binary NAME REQUIREMENT`` (the sdist of that package, its
    build requirements as wheels) into the reference cache, kept across sessions and runs."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    name, _, version = requirement.partition("==")
    if not list(DOWNLOADS.glob(f"{name}-{version}.tar.gz")):
        # nox's own pip (an environment made by uv has none)
        session.run_install(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", name,
                            "--dest", str(DOWNLOADS), requirement, external=True)


#: pytest-xdist: two worker processes (CI has 2 cores), each test file in one worker
#: (``--dist loadfile``: the conformance page's rows test and the rows it checks share a
#: process, so each row is computed once)
XDIST = ("-n", os.environ.get("EVALKIT_TEST_WORKERS", "2"), "--dist", "loadfile")


def _pytest(session: nox.Session, marker: str, *paths: str, workers: bool = True) -> None:
    """pytest on the tests of ``marker`` (in two worker processes unless ``workers`` is
    false); exit status 5 (no test selected, e.g. by a ``-k`` passed after ``--``) does not
    fail the session."""
    session.run("python", "-m", "pytest", "-m", marker, *(XDIST if workers else ()), *paths, *session.posargs,
                env=_env(), success_codes=[0, 5])


def _worker_venv(session: nox.Session, name: str, python: str, packages: list[str]) -> Path:
    """A second virtualenv, ``.nox/<session>/worker-<name>``, with ``packages`` and their own
    pins, for a reference that cannot share evalkit's process; returns its interpreter."""
    target = Path(session.virtualenv.location) / f"worker-{name}"
    exe = target / "bin" / "python"
    uv = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if uv:  # as the sessions' own environments
        if not exe.exists():
            session.run_install(uv, "venv", "--quiet", "--python", python, str(target), external=True)
        session.run_install(uv, "pip", "install", "--quiet", "--python", str(exe), *packages, external=True)
        return exe
    if not exe.exists():
        session.run_install(python, "-m", "venv", str(target), external=True)
    session.run_install(str(exe), "-m", "pip", "install", "--quiet", *packages, external=True)
    return exe


def _python38() -> str:
    """A CPython 3.8 for allRank's worker: ``$EVALKIT_PYTHON38``, ``python3.8`` on PATH, or
    pyenv's 3.8 (the machine image has one); none: the session fails, naming what to set."""
    for candidate in [os.environ.get("EVALKIT_PYTHON38"), shutil.which("python3.8"),
                      *sorted(glob.glob(str(Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
                                            / "versions" / "3.8*" / "bin" / "python3.8")), reverse=True)]:
        if candidate and os.access(candidate, os.X_OK):
            import subprocess

            if subprocess.run([candidate, "-c", "import venv"], capture_output=True).returncode == 0:
                return candidate
    raise SystemExit("allrank session: no CPython 3.8 (allRank 1.4.3 pins torch<=1.8.0, whose wheels stop at "
                     "Python 3.8/3.9); set EVALKIT_PYTHON38 to one")


@nox.session
def unit(session: nox.Session) -> None:
    """The unit layer: evalkit with the light references (pytrec_eval, scikit-learn, ranx,
    ir_measures, pyndeval, trec_eval 9.0.8 and 10.0 built from ../shared/references);
    under 5 minutes on 2 cores."""
    _install(session, "test")
    _download_sdist(session, PYNDEVAL_SDIST)
    _pytest(session, "unit", "--durations=30")


@nox.session
def conformance(session: nox.Session) -> None:
    """The conformance rows of the light references (trec_eval 9.0.8 and 10.0 built from
    ../shared/references, pytrec_eval, scikit-learn, ranx, ir_measures, ndeval, gdeval.pl,
    cited vectors), the trec_eval binaries' cross-check and the unit environment's slow
    tests (layer ``extended``): the unit layer's environment."""
    _install(session, "test")
    _download_sdist(session, PYNDEVAL_SDIST)
    _pytest(session, "conformance or extended", "--durations=10")


@nox.session
def reports(session: nox.Session) -> None:
    """Report checks that drive programs outside Python (headless Chromium and
    chromedriver, pdflatex) and the full Robust 2003 config."""
    _install(session, "test")
    _pytest(session, "reports")


@nox.session
def ltr(session: nox.Session) -> None:
    """LightGBM, XGBoost (the CPU build, xgboost-cpu), CatBoost."""
    _install(session, "test", "ref-ltr")
    _pytest(session, "ltr")


@nox.session
def torch(session: nox.Session) -> None:
    """torch 2.13.0 (CPU): torchmetrics, pytorch-ignite, pytorchltr (its sdist: 0.2.1 does not
    build on Python 3.11, its pure-Python evaluation package is imported from the sdist)."""
    _install(session, "test", "ref-torch")
    _download_sdist(session, PYTORCHLTR_SDIST)
    _pytest(session, "torch")


@nox.session
def torchrec(session: nox.Session) -> None:
    """TorchRec 1.8.0 with its own pins (torchmetrics 1.0.3, tensordict, pyre-extensions) but
    FBGEMM's CPU build: TorchRec requires ``fbgemm-gpu``, the CUDA build (2.6 GB), whose
    ``fbgemm_gpu_config.so`` does not load with the CPU torch; ``fbgemm-gpu-cpu`` 1.8.0 ships
    the same ``fbgemm_gpu`` package for the CPU. So the extra holds TorchRec's requirements
    with that one swapped, and TorchRec itself goes in without resolving its requirements
    again (tests/conformance/README.md)."""
    _install(session, "test", "ref-torchrec")
    session.install("--no-deps", TORCHREC)
    _pytest(session, "torchrec")


@nox.session
def recbole(session: nox.Session) -> None:
    """RecBole 1.2.1 with its own pins (ray <= 2.6.3, colorlog 4.7.2, colorama 0.4.4) and numpy
    1.23, in a worker virtualenv (evalkit needs numpy >= 1.24)."""
    _install(session, "test")
    exe = _worker_venv(session, "recbole", "python", RECBOLE_WORKER)
    session.env["EVALKIT_RECBOLE_PYTHON"] = str(exe)
    _pytest(session, "recbole")


@nox.session
def allrank(session: nox.Session) -> None:
    """allRank 1.4.3 with its own pins (torch 1.8.0, torchvision 0.9.0, gcsfs 0.6.2) on
    Python 3.8, in a worker virtualenv."""
    _install(session, "test")
    exe = _worker_venv(session, "allrank", _python38(), ALLRANK_WORKER)
    session.env["EVALKIT_ALLRANK_PYTHON"] = str(exe)
    _pytest(session, "allrank")


@nox.session
def embeddings(session: nox.Session) -> None:
    """Embedding benchmarks: sentence-transformers, BEIR 2.2.0, MTEB."""
    _install(session, "test", "ref-embeddings")
    _pytest(session, "embeddings")


@nox.session
def recsys(session: nox.Session) -> None:
    """Recommender libraries: recommenders 1.2.1, implicit."""
    _install(session, "test", "ref-recsys")
    _pytest(session, "recsys")


@nox.session
def lenskit(session: nox.Session) -> None:
    """LensKit 0.14.4 with its own pins (numba < 0.59, which ranx, a light reference, cannot
    share): evalkit, pytest and LensKit only, on the files that hold its tests."""
    _install(session, "ref-lenskit")
    _pytest(session, "lenskit", "tests/conformance/test_conformance.py", "tests/test_presets_libraries.py")


@nox.session
def spark(session: nox.Session) -> None:
    """The Spark backend and Spark's own NDCG (pyspark in local mode; Java 17+)."""
    _install(session, "test", "spark", "spark-test")
    _pytest(session, "spark")
