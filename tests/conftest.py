"""Shared fixtures for the evalkit test suite.

Real evaluation data lives beside the checkout in ``../shared/data`` (on CI and on
the development machine ``/work/shared/data``); it is never copied into the
repository. Tests that need it use the :func:`shared_data` fixture (or
:func:`shared_path`), which FAILS the test with a clear reason when the folder is
absent (CI has it beside the checkout, so a missing folder is a broken setup, not a
reason to pass), and carry the ``shared`` marker (``pytest -m "not shared"`` deselects
them when working without the data).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SEEDS = REPO_ROOT.parent / "shared" / "seeds"


def pytest_configure(config):
    # Also declared in pyproject.toml; repeated here so the markers are known even
    # when pytest is run with another rootdir/config.
    config.addinivalue_line("markers", "shared: needs ../shared/data beside the checkout")
    config.addinivalue_line("markers", "slow: evaluates the full Robust 2003 set")
    config.addinivalue_line("markers", "cwl_eval: runs cwl_eval's command line (cwl-eval; skipped without it)")
    config.addinivalue_line("markers", "spark: runs the Spark backend in local mode (pyspark and Java 17+)")
    config.addinivalue_line(
        "markers", "integration: installs a package into a fresh virtual environment (runs by default)"
    )


def shared_path(*parts: str) -> Path:
    """``../shared/data/<parts>``; fails the calling test if it does not exist
    (deselect such tests with ``-m "not shared"`` instead)."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.fail(
            f"shared evaluation data not found at {path} "
            f"(expected ../shared/data beside the checkout {REPO_ROOT}; see /work/shared/data/README.md; "
            f"run with -m 'not shared' to deselect the tests that need it)",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ``../shared/data``; fails the test when the folder is absent."""
    return shared_path()


@pytest.fixture(scope="session")
def trec_eval_dir() -> Path:
    """``../shared/data/trec_eval_test`` (trec_eval's own test suite)."""
    return shared_path("trec_eval_test")


@pytest.fixture(scope="session")
def ir_measures_dir() -> Path:
    """``../shared/data/ir_measures_fixtures``."""
    return shared_path("ir_measures_fixtures")


@pytest.fixture(scope="session")
def registry():
    """A registry with no third-party plugins, so results do not depend on what else
    is installed."""
    from evalkit import build_registry

    return build_registry(disable_plugins=True)


def missing_tool(message: str) -> None:
    """A tool the test needs (Chromium, chromedriver, pdflatex) is not installed.

    Under CI (the ``CI`` environment variable set to ``true``/``1``/``yes``, as CI
    services set it) the pipeline installs the tool (``.ci/run`` does), so its absence
    FAILS the test; outside CI the test is skipped with ``message`` (how to install it)."""
    if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes"):
        pytest.fail(f"{message} -- CI=true: the pipeline installs it, so this is a failure", pytrace=False)
    pytest.skip(f"{message} (outside CI only; under CI=true this fails)")


def assert_per_query(got, want, *, abs_tol, context=""):
    """Assert that two ``{qid: value}`` maps hold the SAME query set and agree within
    ``abs_tol`` on every query.

    ``got`` is evalkit's side, ``want`` the oracle's. Comparing only over ``want``'s
    queries would let a query evalkit adds (or keeps when the oracle drops it) pass
    unnoticed, so the key sets are compared first; the message lists what differs.
    """
    got_q, want_q = set(got), set(want)
    assert got_q == want_q, (
        f"{context}: query sets differ; only in evalkit: {sorted(got_q - want_q)[:10]}, "
        f"only in the reference: {sorted(want_q - got_q)[:10]}"
    )
    assert want_q, f"{context}: the reference returned no query"
    bad = [(q, got[q], want[q]) for q in sorted(want_q) if not abs(float(got[q]) - float(want[q])) <= abs_tol]
    assert not bad, f"{context}: {len(bad)} of {len(want_q)} queries differ by more than {abs_tol}: {bad[:5]}"


def to_pytrec(qrels, run):
    """``(qrels, run)`` as pytrec_eval's dicts: integer grades, float scores."""
    q = {qid: {d: int(g) for d, g in docs.items()} for qid, docs in qrels.to_dict().items()}
    return q, run.to_dict()


@pytest.fixture(scope="session")
def spark():
    """One local Spark session (``local[2]``) for the whole test session: starting the
    JVM costs seconds, so every Spark test shares it. Needs pyspark and Java 17+
    (the ``test`` extra installs pyspark; ``.ci/run`` installs Java)."""
    from evalkit.spark import session

    spark = session("local[2]", {"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false",
                                 "spark.default.parallelism": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    yield spark
    spark.stop()
