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


# ----------------------------------------------------------------------------- layers
#: The test layers, one pytest marker each, one nox session each (noxfile.py): ``unit`` and
#: ``conformance`` need evalkit and the light references only (the ``test`` extra: pytrec_eval,
#: scikit-learn, ranx, ir_measures, pyndeval; trec_eval built from ../shared/references)
#: and FAILS, never skips, when one is missing; every other layer is a family of heavy
#: references with its own environment. A test is in ``unit`` unless LAYER_OF_TEST or,
#: for a conformance row, LAYER_OF_PRESET puts it elsewhere.
LAYERS = {
    "unit": "evalkit and the light references (nox -s unit)",
    "conformance": "the conformance rows of the light references and the trec_eval binaries' cross-check: "
                   "the unit layer's environment, minutes of CPU (nox -s conformance)",
    "extended": "tests of the unit layer's environment that take tens of seconds each, moved out of the unit "
                "layer's 5 minutes (--durations=30; nox -s conformance runs them)",
    "reports": "the reports driven through programs outside Python: Chromium + chromedriver, pdflatex; "
               "the full Robust 2003 config (nox -s reports)",
    "ltr": "LightGBM, XGBoost (CPU build), CatBoost (nox -s ltr)",
    "torch": "torch 2.13 (CPU): torchmetrics, pytorch-ignite, pytorchltr (nox -s torch)",
    "torchrec": "TorchRec 1.8.0 with torchmetrics 1.0.3 (nox -s torchrec)",
    "recbole": "RecBole 1.2.1 in a worker environment with numpy < 1.24 (nox -s recbole)",
    "allrank": "allRank 1.4.3 in a worker environment with torch 1.8.0 on Python 3.8 (nox -s allrank)",
    "embeddings": "sentence-transformers, BEIR, MTEB (nox -s embeddings)",
    "recsys": "recommenders 1.2.1, implicit (nox -s recsys)",
    "lenskit": "LensKit 0.14.4 (numba < 0.59; nox -s lenskit)",
    "spark": "pyspark in local mode and Java 17+ (nox -s spark)",
}

#: node-id prefixes (a file, or ``file::test``) -> layer; the longest matching prefix wins
LAYER_OF_TEST = {
    "tests/test_spark.py": "spark",
    "tests/test_presets_spark.py": "spark",
    "tests/test_html.py": "reports",
    "tests/test_latex.py": "reports",
    "tests/test_robust03.py": "reports",
    "tests/test_report_escaping.py::test_latex_with_hostile_names_compiles": "reports",
    "tests/conformance/test_trec_eval_binary.py": "conformance",
    "tests/test_docs_code.py::test_python_blocks_run[scale.md]": "spark",
    "tests/test_docs_code.py::test_shell_commands_run[scale.md": "spark",
    "tests/test_docs_code.py::test_python_blocks_run[training.md]": "ltr",
    # its BEIR substitution example imports beir (the embeddings layer's reference)
    "tests/test_docs_code.py::test_python_blocks_run[trec_eval.md]": "embeddings",
    # the unit layer's slowest (--durations=30 of `nox -s unit`: 20-45 s of CPU each, most of it
    # ranx's numba compilation and Robust 2003 runs): in the unit environment's extended layer
    "tests/test_cli.py::test_eval_table_and_json_match_peers": "extended",
    "tests/test_frames.py::test_ranx_frames_match_ranx": "extended",
    "tests/test_presets_trec.py::test_ranx_sixteen_tied_documents_first_relevant": "extended",
    "tests/test_presets_trec.py::test_ranx_random_short_lists_with_ties": "extended",
    "tests/test_identify.py::test_per_query_file": "extended",
    "tests/test_identify.py::test_ranx_ndcg_of_one_robust03_run_names_ranx_or_says_too_weak": "extended",
    "tests/test_identify.py::test_trec_eval_number_from_its_own_test_suite": "extended",
    "tests/test_docs_code.py::test_python_blocks_run[reports.md]": "extended",
    # the next slowest once the ranx paths, identify's ranx cases and the ecosystem tests came
    # (a `nox -s unit` of 5 min 5 s under load; test_identify.py alone held one xdist worker
    # 2.5 min under --dist loadfile)
    "tests/test_identify.py::test_ranx_default_call_on_six_robust03_runs_names_ranx_preset": "extended",
    "tests/test_identify.py::test_lone_chance_composition_is_not_named": "extended",
    "tests/test_identify.py::test_several_numbers_are_intersected": "extended",
    "tests/test_identify.py::test_ranx_numbers_at_two_cutoffs_are_intersected": "extended",
    "tests/test_presets_trec.py::test_ranx_robust03": "extended",
    "tests/test_presets_trec.py::test_ranx_random_long_lists_with_ties": "extended",
    "tests/test_ecosystem_ranx.py::test_run_keeps_the_order_ranx_holds": "extended",
    "tests/test_ranx_paths.py::test_each_way_of_building_a_ranx_run": "extended",
    "tests/test_integrations.py::test_lightgbm": "ltr",
    "tests/test_integrations.py::test_xgboost": "ltr",
    "tests/test_integrations.py::test_catboost": "ltr",
    "tests/test_identify.py::test_lightgbm": "ltr",
    "tests/test_identify.py::test_xgboost": "ltr",
    "tests/test_identify.py::test_qrels_with_negative_grades_catboost": "ltr",
    "tests/test_identify.py::test_qrels_with_a_grade_lightgbm_refuses_xgboost": "ltr",
    "tests/test_identify.py::test_torchmetrics": "torch",
    "tests/test_presets_ml.py::test_lightgbm": "ltr",
    "tests/test_presets_ml.py::test_xgboost": "ltr",
    "tests/test_presets_ml.py::test_labels_beyond_float32": "ltr",
    "tests/test_presets_ml.py::test_scores_beyond_float32_match_xgboost_and_torchmetrics": "torch",
    "tests/test_presets_ml.py::test_torchmetrics": "torch",
    "tests/test_presets_ml.py::test_ndcg_float32_honours_the_negative_convention": "torch",
    "tests/test_presets_libraries.py::test_beir": "embeddings",
    "tests/test_compat_pytrec_eval.py::test_beir_evaluate_retrieval_through_compat": "embeddings",
    "tests/test_compat_pytrec_eval.py::test_mteb_retrieval_scores_through_compat": "embeddings",
    "tests/test_presets_libraries.py::test_sentence_transformers": "embeddings",
    "tests/test_presets_libraries.py::test_identify_names_the_library[beir]": "embeddings",
    "tests/test_presets_libraries.py::test_identify_names_the_library[sentence_transformers]": "embeddings",
    "tests/test_presets_libraries.py::test_recommenders": "recsys",
    "tests/test_presets_libraries.py::test_identify_names_the_library[recommenders]": "recsys",
    "tests/test_presets_libraries.py::test_implicit": "recsys",
    "tests/test_presets_libraries.py::test_lenskit": "lenskit",
    "tests/test_presets_libraries.py::test_catboost": "ltr",
    "tests/test_presets_libraries.py::test_ignite": "torch",
}

#: conformance rows (``test_preset_conforms[<preset>]``): preset name, or its library
#: prefix (before the first dot) -> layer; the rows of the light references are in
#: ``conformance`` (the unit layer's environment; too slow for the unit layer's 5 minutes)
LAYER_OF_PRESET = {
    "lightgbm": "ltr", "xgboost": "ltr", "catboost": "ltr",
    "torchmetrics": "torch", "ignite": "torch", "pytorchltr": "torch",
    "torchrec": "torchrec", "recbole": "recbole", "allrank": "allrank",
    "beir": "embeddings", "mteb": "embeddings", "sentence_transformers": "embeddings",
    "recommenders": "recsys", "implicit": "recsys", "lenskit": "lenskit",
    "spark_mllib": "spark", "spark_ml": "spark", "recommenders.ndcg_at_k": "spark",
}

#: the conformance page's rows are checked per layer (test_published_rows_are_what_the_suite_produces)
CONFORMANCE_ROWS = "tests/conformance/test_conformance.py::test_published_rows_are_what_the_suite_produces"


def layer_of_preset(preset: str) -> str:
    return LAYER_OF_PRESET.get(preset) or LAYER_OF_PRESET.get(preset.split(".", 1)[0], "conformance")


def layer_of(nodeid: str) -> str:
    """The layer of a test by its node id (relative to the repository root)."""
    head, _, param = nodeid.partition("[")
    if head.endswith("::test_preset_conforms") and param:
        return layer_of_preset(param.rstrip("]"))
    if head == CONFORMANCE_ROWS and param:
        return param.rstrip("]")
    best = ""
    for prefix in LAYER_OF_TEST:
        if nodeid.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return LAYER_OF_TEST[best] if best else "unit"


def pytest_configure(config):
    # Also declared in pyproject.toml; repeated here so the markers are known even
    # when pytest is run with another rootdir/config.
    config.addinivalue_line("markers", "shared: needs ../shared/data beside the checkout")
    config.addinivalue_line("markers", "slow: evaluates the full Robust 2003 set")
    config.addinivalue_line("markers", "cwl_eval: runs cwl_eval's command line (cwl-eval, a light reference of the test extra)")
    config.addinivalue_line(
        "markers", "integration: installs a package into a fresh virtual environment (runs by default)"
    )
    for name, what in LAYERS.items():
        config.addinivalue_line("markers", f"{name}: layer: {what}")


def pytest_collection_modifyitems(config, items):
    """Marks every test with its layer (LAYER_OF_TEST, LAYER_OF_PRESET; default ``unit``)."""
    root = Path(str(config.rootpath))
    for item in items:
        try:
            rel = Path(str(item.path)).resolve().relative_to(REPO_ROOT)
        except ValueError:
            rel = Path(str(item.path)).relative_to(root)
        nodeid = rel.as_posix() + item.nodeid[item.nodeid.index("::"):] if "::" in item.nodeid else rel.as_posix()
        layer = layer_of(nodeid)
        # a test file may name its layer itself (``pytestmark = pytest.mark.spark``): the
        # table's default (``unit``) does not override it
        own = [m.name for m in item.iter_markers() if m.name in LAYERS]
        if own and layer == "unit":
            continue
        item.add_marker(getattr(pytest.mark, layer))


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
