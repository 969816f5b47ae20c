"""Plugins isolated and checked at run time (issue 23).

* A third-party plugin that fails to import, to register or evalkit's start-up probe
  is disabled with one ``evalkit: warning:`` line naming it (distribution, entry
  point) and how to stop loading it; every other command and component keeps
  working; asking for one of its components is an error (exit status 2) naming the
  plugin and why it was disabled.
* What a component returns is checked on every call (``engine/checks.call_component``):
  a tie policy that passes the probe but returns a non-permutation on real data used to
  give NDCG above 1 with exit status 0; now it is exit status 3 naming the plugin and
  the component. So is a metric value that is not finite where it is defined, and a
  ``sys.exit()`` inside a component (it used to end the command with status 0 and no
  output). Ctrl-C inside a component stops the command (130) and names it.
* A plugin's ``print`` (at import, in a hook, in a component) goes to standard error:
  ``--format json`` output stays JSON.

The plugins are real: fake distributions (``*.dist-info`` folders next to their
modules, as ``tests/test_registry.py`` writes them) found through
``importlib.metadata``, in process (``evalkit.cli.main``) and, for the end-to-end
cases, in a subprocess that finds them on ``PYTHONPATH`` like installed ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import evalkit
import evalkit.registry as registry_mod
from evalkit import Qrels, Run, build_registry, evaluate
from evalkit.cli import main
from evalkit.errors import ComponentContractError, DisabledPluginError, PluginDisabledWarning, PluginInterrupt
from evalkit.registry import DISABLE_ENV
from test_registry import FakeSite, site  # noqa: F401  (the fake-distributions fixture)

REPO_ROOT = Path(__file__).resolve().parent.parent

#: a correct tie policy (score descending, ties in input order) that breaks its
#: contract only on inputs larger than the probe's seven rows, as a plugin with a bug
#: in a code path the probe does not reach
TIES = """
def good_order(keys):
    return np.lexsort((keys.line, -keys.score, keys.query))

@hookimpl
def evalkit_register_tie_policies(register):
    register(TiePolicy(name="{name}", fn={fn}, formula="test", source="test"))
"""

DUPLICATE_TOP = TIES.format(name="dup_top", fn="dup_top") + """
def dup_top(keys):
    order = good_order(keys)
    if len(order) > 7:
        order[1] = order[0]  # the best document twice, the second one lost
    return order
"""

EXITS_LATE = TIES.format(name="exits_late", fn="exits_late") + """
import sys

def exits_late(keys):
    if len(keys.query) > 7:
        sys.exit(0)
    return good_order(keys)
"""

INTERRUPTED_LATE = TIES.format(name="ctrl_c", fn="ctrl_c") + """
def ctrl_c(keys):
    if len(keys.query) > 7:
        raise KeyboardInterrupt
    return good_order(keys)
"""

NAN_METRIC = """
def nan_late(inp):
    values = np.ones(inp.n_queries)
    if inp.n_queries > 2:
        values[1] = np.nan
    return MetricOutput(values, np.ones(inp.n_queries, dtype=bool))

@hookimpl
def evalkit_register_metrics(register):
    register(Metric(name="nan_late", fn=nan_late, formula="test", source="test"))
"""

CHATTY = """
print("chatty: imported")

def loud(grades):
    print("chatty: gain called on", len(grades), "grades")
    return grades * 1.0

@hookimpl
def evalkit_register_gains(register):
    print("chatty: registering")
    register(Gain(name="loud", fn=loud, formula="g = rel", source="test"))
"""

PROBE_FAILS = """
@hookimpl
def evalkit_register_gains(register):
    register(Gain(name="sound", fn=lambda g: g * 1.0, formula="g = rel", source="test"))
    register(Gain(name="short", fn=lambda g: g[:-1], formula="one short", source="test"))

@hookimpl
def evalkit_register_presets(register):
    register(Preset(name="probefails.ndcg", spec="ndcg(gain=sound)", description="test", source="test"))
"""

GOOD = """
@hookimpl
def evalkit_register_gains(register):
    register(Gain(name="cube", fn=lambda g: g ** 3, formula="g = rel^3", source="test"))
"""


def _write_data(root: Path) -> tuple[str, str]:
    """Three queries of 12 documents (more rows than the probe's seven), grades 0..3,
    each ranked in the ideal order without tied scores: NDCG@10 is 1."""
    rng = np.random.default_rng(23)
    qrels, run = [], []
    for q in ("q1", "q2", "q3"):
        grades = rng.integers(0, 3, 12)  # one document of grade 3, the best
        grades[0] = 3
        for d, g in enumerate(grades):
            qrels.append(f"{q} 0 d{d} {g}")
        for rank, d in enumerate(np.argsort(-grades, kind="stable")):
            run.append(f"{q} Q0 d{d} {rank + 1} {100 - rank} sys")
    (root / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (root / "run.txt").write_text("\n".join(run) + "\n")
    return str(root / "qrels.txt"), str(root / "run.txt")


@pytest.fixture
def cli(site, tmp_path):  # noqa: F811 - the fixture of test_registry
    """``cli(*argv) -> (status, stdout, stderr)`` through ``evalkit.cli.main`` with the
    fake site's plugins, a fresh process-wide registry each time."""
    data = tmp_path / "data"
    data.mkdir()
    files = _write_data(data)

    def run(capsys, *argv):
        registry_mod._cached.cache_clear()
        try:
            rc = main([a.format(qrels=files[0], run=files[1]) for a in argv])
        finally:
            registry_mod._cached.cache_clear()
        out, err = capsys.readouterr()
        return rc, out, err
    return run


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("evalkit: warning:")]


# ----------------------------------------------------------------------------- disabled plugins

def test_broken_import_disables_only_that_plugin(site):  # noqa: F811
    site.add("evalkit-broken", "import evalkit_module_that_does_not_exist\n", ep_name="broken")
    site.add("evalkit-good", GOOD, ep_name="good")
    with pytest.warns(PluginDisabledWarning) as caught:
        reg = build_registry(disable_plugins=False)
    assert len(caught) == 1
    msg = str(caught[0].message)
    assert "plugin 'broken' from evalkit-broken 1.0 (entry point 'broken') is disabled" in msg
    assert "failed to import" in msg and "evalkit_module_that_does_not_exist" in msg
    assert f"{DISABLE_ENV}=broken" in msg and "--no-plugins" in msg
    assert "\n" not in msg
    assert reg.plugins == {"good": "evalkit-good 1.0 (entry point 'good')"}
    assert [p.name for p in reg.disabled] == ["broken"]
    # the good plugin works: 3^3 at rank 1 of 1 document
    qrels = Qrels.from_rows([("q", "a", 3)])
    run = Run.from_rows([("q", "a", 1.0)], name="r")
    assert evaluate(qrels, run, ["dcg(gain=cube)"], registry=reg).means()[0, 0] == 27.0
    # a name it might have provided: the unknown-name error says it is disabled
    with pytest.raises(evalkit.FlavourError, match=r"unknown gain 'mystery'.*plugin 'broken'.*may provide it.*"
                                                   r"failed to import"):
        reg.get("gain", "mystery")
    # the way out named in the warning works, without a warning
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginDisabledWarning)
        assert build_registry(disable_plugins=["broken"]).plugins == reg.plugins


def test_probe_failure_disables_the_plugin_and_its_components_name_it(site):  # noqa: F811
    site.add("evalkit-probefails", PROBE_FAILS, ep_name="probefails")
    with pytest.warns(PluginDisabledWarning, match=r"plugin 'probefails' from evalkit-probefails 1\.0 "
                                                   r"\(entry point 'probefails'\) is disabled: gain 'short' "
                                                   r"failed evalkit's probe.*shape \(4,\); expected \(5,\)"):
        reg = build_registry(disable_plugins=False)
    assert "sound" not in reg.names("gain") and "probefails.ndcg" not in reg.names("preset")
    for family, name in (("gain", "sound"), ("gain", "short"), ("preset", "probefails.ndcg")):
        with pytest.raises(DisabledPluginError, match=rf"{family} '{name}' comes from plugin 'probefails' "
                                                      r"\(evalkit-probefails 1\.0.*disabled at start-up: gain "
                                                      r"'short' failed evalkit's probe"):
            reg.get(family, name)


def test_registration_failure_disables_the_plugin(site):  # noqa: F811
    site.add("evalkit-dupe", """
        @hookimpl
        def evalkit_register_gains(register):
            register(Gain(name="fine", fn=lambda g: g * 1.0, formula="g", source="test"))
            register(Gain(name="exp2", fn=lambda g: g * 1.0, formula="g", source="test"))
    """, ep_name="dupe")
    with pytest.warns(PluginDisabledWarning, match=r"plugin 'dupe'.*its registration failed: duplicate gain name "
                                                   r"'exp2': registered by evalkit \(built-in\) and by evalkit-dupe"):
        reg = build_registry(disable_plugins=False)
    assert reg.get("gain", "exp2").origin == "evalkit (built-in)"
    with pytest.raises(DisabledPluginError, match="gain 'fine' comes from plugin 'dupe'"):
        reg.get("gain", "fine")


def test_second_distribution_with_a_taken_entry_point_name_is_disabled(site):  # noqa: F811
    site.add("evalkit-first", GOOD, ep_name="same")
    site.add("evalkit-second", "", ep_name="same")
    with pytest.warns(PluginDisabledWarning, match=r"plugin 'same' from evalkit-second 1\.0 .*duplicate evalkit "
                                                   r"plugin name 'same': declared by evalkit-first 1\.0"):
        reg = build_registry(disable_plugins=False)
    assert reg.plugins == {"same": "evalkit-first 1.0 (entry point 'same')"}
    assert reg.get("gain", "cube").origin == reg.plugins["same"]


def test_cli_works_with_a_broken_plugin_and_names_it_once(cli, site, capsys):  # noqa: F811
    site.add("evalkit-broken", "import evalkit_module_that_does_not_exist\n", ep_name="broken")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "trec_eval.ndcg_cut@10", "--format", "json")
    assert rc == 0, err
    json.loads(out)
    (line,) = _warnings(err)
    assert "plugin 'broken' from evalkit-broken 1.0 (entry point 'broken') is disabled" in line
    assert f"{DISABLE_ENV}=broken" in line
    rc, out, err = cli(capsys, "--no-plugins", "eval", "{qrels}", "{run}", "-m", "trec_eval.ndcg_cut@10")
    assert rc == 0 and _warnings(err) == []
    # `evalkit plugins` lists it as disabled, with the reason
    rc, out, err = cli(capsys, "plugins", "--format", "json")
    assert rc == 0
    disabled = json.loads(out)["disabled_plugins"]
    assert list(disabled) == ["broken"] and "failed to import" in disabled["broken"]["reason"]
    rc, out, err = cli(capsys, "plugins")
    assert "Disabled (it failed at start-up): plugin 'broken' from evalkit-broken 1.0" in out


def test_cli_asking_for_a_disabled_plugins_component_is_exit_2(cli, site, capsys):  # noqa: F811
    site.add("evalkit-probefails", PROBE_FAILS, ep_name="probefails")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "probefails.ndcg@10")
    assert rc == 2 and out == ""
    assert len(_warnings(err)) == 1
    (error,) = [line for line in err.splitlines() if line.startswith("evalkit: error:")]
    assert "preset 'probefails.ndcg' comes from plugin 'probefails' (evalkit-probefails 1.0" in error
    assert "gain 'short' failed evalkit's probe" in error
    assert "Traceback" not in err


def test_cli_disables_a_plugin_whose_preset_does_not_parse(cli, site, capsys):  # noqa: F811
    """A preset naming an unknown component used to stop every command (exit 2); now
    its plugin is disabled at start-up with one warning, the command runs, and the
    plugin's other components name it when asked for."""
    site.add("evalkit-badpreset", """
        @hookimpl
        def evalkit_register_gains(register):
            register(Gain(name="cubic", fn=lambda g: g ** 3, formula="g = rel^3", source="test"))

        @hookimpl
        def evalkit_register_presets(register):
            register(Preset(name="x.bad", spec="ndcg(gain=quadratic)"))
    """, ep_name="badpreset")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "trec_eval.ndcg_cut@10", "--format", "json")
    assert rc == 0 and json.loads(out)
    (line,) = _warnings(err)
    assert ("plugin 'badpreset' from evalkit-badpreset 1.0 (entry point 'badpreset') is disabled: its preset "
            "'x.bad' does not parse: unknown gain 'quadratic'") in line
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "ndcg(gain=cubic)@10")
    assert rc == 2 and out == ""
    assert "gain 'cubic' comes from plugin 'badpreset'" in err and "preset 'x.bad' does not parse" in err


# ----------------------------------------------------------------------------- run-time checks

def test_non_permutation_tie_policy_is_exit_3_naming_it(cli, site, capsys):  # noqa: F811
    site.add("evalkit-dupties", DUPLICATE_TOP, ep_name="dupties")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "ndcg(ties=dup_top)@10", "--format", "json")
    assert rc == 3 and out == ""
    first = err.splitlines()[0]
    assert first.startswith("evalkit: internal error: ComponentContractError: tie policy 'dup_top' from "
                            "evalkit-dupties 1.0 (entry point 'dupties') returned an order that is not a "
                            "permutation of the 36 rows")
    assert "This is a bug in plugin 'dupties'" in err and f"{DISABLE_ENV}=dupties" in err


def test_non_permutation_used_to_give_ndcg_above_one(site, tmp_path):  # noqa: F811
    """Without the check the same order gives NDCG > 1 (the best document counted twice):
    the value the check prevents, computed from the plugin's own order."""
    site.add("evalkit-dupties", DUPLICATE_TOP, ep_name="dupties")
    reg = build_registry(disable_plugins=False)
    qrels_path, run_path = _write_data(tmp_path)
    qrels, run = evalkit.read_qrels(qrels_path), evalkit.read_run(run_path)
    with pytest.raises(ComponentContractError) as info:
        evaluate(qrels, run, ["ndcg(ties=dup_top)@10"], registry=reg)
    assert (info.value.family, info.value.component, info.value.plugin) == ("ties", "dup_top", "dupties")
    # what the broken order means: the top document at ranks 1 and 2
    grades = {(q, d): g for q, d, g in zip(qrels.qid, qrels.docno, qrels.grade)}
    first = [d for q, d in zip(run.qid, run.docno) if q == "q1"]
    ranked = [first[0], first[0]] + first[2:10]
    dcg = sum(grades.get(("q1", d), 0) / np.log2(r + 2) for r, d in enumerate(ranked))
    ideal = sorted((g for (q, _), g in grades.items() if q == "q1"), reverse=True)[:10]
    assert dcg / sum(g / np.log2(r + 2) for r, g in enumerate(ideal)) > 1.0
    assert evaluate(qrels, run, ["ndcg(ties=stable)@10"], registry=reg).means()[0, 0] == 1.0


def test_tie_policy_breaking_query_order_is_refused(site):  # noqa: F811
    site.add("evalkit-reverse", TIES.format(name="reverse_q", fn="reverse_q") + """
def reverse_q(keys):
    order = good_order(keys)
    return order[::-1].copy() if len(order) > 7 else order
""", ep_name="reverse")
    reg = build_registry(disable_plugins=False)
    qrels = Qrels.from_rows([(f"q{i}", "a", 1) for i in range(4)])
    run = Run.from_rows([(f"q{i}", d, float(s)) for i in range(4) for s, d in enumerate("ab")], name="r")
    with pytest.raises(ComponentContractError, match=r"tie policy 'reverse_q'.*does not keep each query's rows "
                                                     r"together in ascending query order"):
        evaluate(qrels, run, ["ndcg(ties=reverse_q)"], registry=reg)


def test_sys_exit_in_a_component_is_exit_3_not_a_silent_0(cli, site, capsys):  # noqa: F811
    site.add("evalkit-exits", EXITS_LATE, ep_name="exits")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "ndcg(ties=exits_late)@10", "--format", "json")
    assert rc == 3 and out == ""
    assert ("tie policy 'exits_late' from evalkit-exits 1.0 (entry point 'exits') called sys.exit(0) during "
            "the evaluation") in err
    assert "This is a bug in plugin 'exits'" in err


def test_keyboard_interrupt_in_a_component_names_it(cli, site, capsys):  # noqa: F811
    site.add("evalkit-ctrlc", INTERRUPTED_LATE, ep_name="ctrlc")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "ndcg(ties=ctrl_c)@10")
    assert rc == 130 and out == ""
    assert err.strip() == ("evalkit: interrupted (while tie policy 'ctrl_c' from evalkit-ctrlc 1.0 "
                           "(entry point 'ctrlc') was running)")
    reg = build_registry(disable_plugins=False)
    qrels = Qrels.from_rows([(f"q{i}", "a", 1) for i in range(4)])
    run = Run.from_rows([(f"q{i}", d, float(s)) for i in range(4) for s, d in enumerate("ab")], name="r")
    with pytest.raises(KeyboardInterrupt) as info:  # still a KeyboardInterrupt for Python callers
        evaluate(qrels, run, ["ndcg(ties=ctrl_c)"], registry=reg)
    assert isinstance(info.value, PluginInterrupt)


def test_metric_value_not_finite_where_defined_is_exit_3(cli, site, capsys):  # noqa: F811
    site.add("evalkit-nanm", NAN_METRIC, ep_name="nanm")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "nan_late@10", "--format", "tsv")
    assert rc == 3 and out == ""
    assert ("metric 'nan_late' from evalkit-nanm 1.0 (entry point 'nanm') returned nan for query index 1, "
            "which it marks defined") in err


def test_plugin_gain_not_finite_is_exit_3(cli, site, capsys):  # noqa: F811
    """The probe's grades are 0..4; a gain that breaks at grade 5 is caught on the call."""
    site.add("evalkit-pole", """
        @hookimpl
        def evalkit_register_gains(register):
            register(Gain(name="pole", fn=lambda g: 1.0 / (5.0 - g), formula="1 / (5 - rel)", source="test"))
    """, ep_name="pole")
    qrels = Qrels.from_rows([("q", "a", 5), ("q", "b", 1)])
    run = Run.from_rows([("q", "a", 2.0), ("q", "b", 1.0)], name="r")
    reg = build_registry(disable_plugins=False)
    with pytest.raises(ComponentContractError, match=r"gain 'pole' from evalkit-pole 1\.0 \(entry point 'pole'\) "
                                                     r"returned inf for grade 5, not a finite number"):
        evaluate(qrels, run, ["ndcg(gain=pole)"], registry=reg)


def test_builtin_flavours_pass_the_checks_unchanged(site, tmp_path):  # noqa: F811
    """The per-call checks accept every built-in tie policy on tied data (the values
    are the conformance suite's business; here: no false alarm)."""
    reg = build_registry(disable_plugins=True)
    rng = np.random.default_rng(5)
    rows = [(f"q{q}", f"d{d}", float(rng.integers(0, 3))) for q in range(5) for d in range(20)]
    run = Run.from_columns(*zip(*rows), rank=[i % 20 + 1 for i in range(100)], name="r")
    qrels = Qrels.from_rows([(f"q{q}", f"d{d}", int(rng.integers(0, 4))) for q in range(5) for d in range(0, 20, 2)])
    specs = [f"ndcg(ties={name})@10" for name in reg.names("ties")]
    res = evaluate(qrels, run, specs, registry=reg)
    assert np.all((res.means() >= 0) & (res.means() <= 1))


# ----------------------------------------------------------------------------- stage families

#: one component of every stage family, whose parameter ``mode`` picks its behaviour:
#: ``ok``, ``print`` (then ok), ``exit`` (``sys.exit(4)``), ``shape`` (one value too
#: few), ``dtype`` (a wrong dtype), ``nan`` (a non-finite value where the contract
#: wants a number)
STAGES = """
import sys
from evalkit.components import Aggregate, Divergence, GradeRule, NegativeRule, Outcome, Refusal, RunFilter

MODE = Param("mode", "str", "ok", "test behaviour", choices=("ok", "print", "exit", "shape", "dtype", "nan"))

def _act(mode, name):
    if mode == "print":
        print("stagebugs:", name, "called")
    if mode == "exit":
        sys.exit(4)

def rf(inp, mode):
    _act(mode, "run filter")
    n = len(inp.ranked.query)
    return {"shape": np.zeros(n - 1, dtype=bool), "dtype": np.zeros(n, dtype=np.int64)}.get(mode, np.zeros(n, bool))

def drops(grades, mode):
    _act(mode, "drops")
    n = len(grades)
    return {"shape": np.zeros(n - 1, dtype=bool), "dtype": np.zeros(n)}.get(mode, np.zeros(n, dtype=bool))

def check(grades, mode):
    _act(mode, "check")
    n = len(grades)
    if mode == "shape":
        return Refusal(np.ones(n - 1, dtype=bool), lambda v, c: "refused")
    if mode == "dtype":
        return Refusal(np.ones(n), lambda v, c: "refused")
    return None

def reading(grades, mode):
    _act(mode, "reading")
    return {"shape": grades[:-1], "dtype": grades.astype(complex), "nan": grades * np.nan}.get(mode, grades)

def oc(values, mode):
    _act(mode, "outcome")
    return {"shape": values[:-1], "dtype": values.astype(complex),
            "nan": np.where(np.isnan(values), 0.5, np.inf)}.get(mode, values)

def ag(values, mode):
    _act(mode, "aggregate")
    means = np.nanmean(values, axis=-1)
    return {"shape": means[:-1], "dtype": means.astype(complex), "nan": means * np.nan}.get(mode, means)

def dv(qrels, run):
    print("stagebugs: divergence called")
    return np.zeros((1, 1), dtype=object)

@hookimpl
def evalkit_register_run_filters(register):
    register(RunFilter(name="rf", fn=rf, params=(MODE,), formula="none"))

@hookimpl
def evalkit_register_negative_rules(register):
    register(NegativeRule(name="dr", fn=lambda g, mode: g, params=(MODE,), drops=drops, formula="none"))

@hookimpl
def evalkit_register_grade_rules(register):
    register(GradeRule(name="ck", fn=lambda g, mode: g, params=(MODE,), check=check, formula="none"))
    register(GradeRule(name="rd", fn=reading, params=(MODE,), reads_grades=True, formula="none"))

@hookimpl
def evalkit_register_outcomes(register):
    register(Outcome(name="oc", fn=oc, params=(MODE,), formula="v"))

@hookimpl
def evalkit_register_aggregates(register):
    register(Aggregate(name="ag", fn=ag, params=(MODE,), formula="mean"))

@hookimpl
def evalkit_register_divergences(register):
    register(Divergence(name="dv", fn=dv, message="{topics} differ"))

@hookimpl
def evalkit_register_presets(register):
    register(Preset(name="stagebugs.dv", spec="ndcg(gain=exp2)", diverges=(("dv", "it differs"),)))
"""

_ORIGIN = "from evalkit-stagebugs 1.0 (entry point 'stagebugs')"

#: (flavour key=component, what the messages call it)
_STAGE_CASES = [("run_filter=rf", "run filter 'rf'"), ("negative=dr", "negative-grade rule 'dr' (drops)"),
                ("grades=ck", "grade rule 'ck' (check)"), ("grades=rd", "grade rule 'rd'"),
                ("outcome=oc", "outcome 'oc'"), ("aggregate=ag", "aggregate 'ag'")]


def _stage_spec(stage: str, mode: str) -> str:
    return f"ndcg({stage}(mode={mode}))@10"


@pytest.mark.parametrize("stage, noun", _STAGE_CASES)
def test_stage_component_print_goes_to_stderr_and_json_stays_valid(cli, site, capsys, stage, noun):  # noqa: F811
    site.add("evalkit-stagebugs", STAGES, ep_name="stagebugs")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", _stage_spec(stage, "print"), "-m",
                       _stage_spec(stage, "ok"), "--format", "json")
    assert rc == 0, err
    data = json.loads(out)
    assert "stagebugs" not in out and "stagebugs:" in err
    # the component did nothing else: every query ranked ideally, NDCG@10 1 as with the
    # default stage (the printing one and the quiet one alike)
    assert list(data["runs"]["sys"]["all"].values()) == [1.0, 1.0]


@pytest.mark.parametrize("stage, noun", _STAGE_CASES)
def test_stage_component_sys_exit_is_exit_3_naming_it(cli, site, capsys, stage, noun):  # noqa: F811
    site.add("evalkit-stagebugs", STAGES, ep_name="stagebugs")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", _stage_spec(stage, "exit"), "--format", "json")
    assert rc == 3 and out == "", err
    assert f"{noun} {_ORIGIN} called sys.exit(4) during the evaluation" in err
    assert "This is a bug in plugin 'stagebugs'" in err and "Traceback" not in err


#: (stage, mode, the contract broken, as the message says it); n = 36 rows, m = 36
#: judgments, q = 3 queries, s = 1 system
_BAD = [
    ("run_filter=rf", "shape", "run filter 'rf' {o} returned a mask of shape (35,); expected (36,)"),
    ("run_filter=rf", "dtype", "run filter 'rf' {o} returned a mask of dtype int64; expected bool"),
    ("negative=dr", "shape", "negative-grade rule 'dr' (drops) {o} returned a mask of shape (35,); expected (36,)"),
    ("negative=dr", "dtype", "negative-grade rule 'dr' (drops) {o} returned a mask of dtype float64; expected bool"),
    ("grades=ck", "shape", "grade rule 'ck' (check) {o} returned Refusal.mask of shape (35,); expected (36,)"),
    ("grades=ck", "dtype", "grade rule 'ck' (check) {o} returned Refusal.mask of dtype float64; expected bool"),
    ("grades=rd", "dtype", "grade rule 'rd' {o} returned grades of dtype complex128; expected a real number"),
    ("grades=rd", "nan", "grade rule 'rd' {o} returned nan for grade"),
    ("outcome=oc", "shape", "outcome 'oc' {o} returned values of shape (2,); expected (3,)"),
    ("outcome=oc", "dtype", "outcome 'oc' {o} returned values of dtype complex128; expected a real number"),
    ("outcome=oc", "nan", "outcome 'oc' {o} returned inf for query index 0 whose value is 1.0; expected a finite "
                          "number"),
    ("aggregate=ag", "shape", "aggregate 'ag' {o} returned aggregates of shape (0,); expected (1,)"),
    ("aggregate=ag", "dtype", "aggregate 'ag' {o} returned aggregates of dtype complex128; expected a real number"),
    ("aggregate=ag", "nan", "aggregate 'ag' {o} returned nan for system index 0, which has included queries; "
                            "expected a finite number"),
]


@pytest.mark.parametrize("stage, mode, message", _BAD)
def test_stage_component_bad_output_is_exit_3_naming_it(cli, site, capsys, stage, mode, message):  # noqa: F811
    site.add("evalkit-stagebugs", STAGES, ep_name="stagebugs")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", _stage_spec(stage, mode), "--format", "json")
    assert rc == 3 and out == "", err
    assert err.startswith("evalkit: internal error: ComponentContractError: " + message.format(o=_ORIGIN)), err
    assert "This is a bug in plugin 'stagebugs'" in err


def test_grade_rule_shape_mismatch_is_caught_before_the_gain(site):  # noqa: F811
    """A reading that drops a grade: the contract names the rule, not the gain after it."""
    site.add("evalkit-stagebugs", STAGES, ep_name="stagebugs")
    reg = build_registry(disable_plugins=False)
    qrels = Qrels.from_rows([("q", "a", 2), ("q", "b", 1)])
    run = Run.from_rows([("q", "a", 2.0), ("q", "b", 1.0)], name="r")
    with pytest.raises(ComponentContractError, match=r"grade rule 'rd' from evalkit-stagebugs 1\.0 \(entry point "
                                                     r"'stagebugs'\) returned grades of shape \(1,\); expected \(2,\)"):
        evaluate(qrels, run, ["ndcg(grades=rd(mode=shape))"], registry=reg)
    assert evaluate(qrels, run, ["ndcg(grades=rd)"], registry=reg).means()[0, 0] == 1.0


def test_divergence_component_is_isolated_and_checked(cli, site, capsys):  # noqa: F811
    site.add("evalkit-stagebugs", STAGES, ep_name="stagebugs")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "stagebugs.dv@10", "--format", "json")
    assert rc == 3 and out == ""
    assert "stagebugs: divergence called" in err
    assert (f"divergence 'dv' {_ORIGIN} returned an array of shape (1, 1); expected the query ids, "
            "one dimension") in err


def test_built_in_stage_components_pass_the_checks():
    """Every built-in component of each stage family on tied data with negative
    grades: no false alarm (the values are the conformance suite's business)."""
    reg = build_registry(disable_plugins=True)
    qrels = Qrels.from_rows([(f"q{q}", f"d{d}", (d * 7 + q) % 5 - 1) for q in range(4) for d in range(0, 12, 2)])
    run = Run.from_rows([(f"q{q}", f"d{d}", float(d // 3)) for q in range(4) for d in range(12)], name="r")
    specs = []
    for family in ("run_filter", "negative", "outcome", "aggregate"):
        for name in reg.names(family):
            comp = reg.get(family, name)
            if getattr(comp, "check", None) is not None or any(p.default is None for p in comp.params):
                continue
            specs.append(f"ndcg({family}={name})@10")
    specs += ["ndcg(outcome=round(decimals=2))@10", "ndcg(aggregate=round_mean(decimals=2))@10"]
    assert len(specs) >= 12
    res = evaluate(qrels, run, specs, registry=reg)
    assert np.isfinite(res.means(reg)).all()


# ----------------------------------------------------------------------------- stdout

def test_plugin_print_never_reaches_json_output(cli, site, capsys):  # noqa: F811
    site.add("evalkit-chatty", CHATTY, ep_name="chatty")
    rc, out, err = cli(capsys, "eval", "{qrels}", "{run}", "-m", "ndcg(gain=loud)@10", "--format", "json")
    assert rc == 0, err
    json.loads(out)
    assert "chatty" not in out
    for said in ("chatty: imported", "chatty: registering", "chatty: gain called on"):
        assert said in err


# ----------------------------------------------------------------------------- end to end

def _subprocess(site_root: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != DISABLE_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(site_root), str(REPO_ROOT)])
    return subprocess.run([sys.executable, "-m", "evalkit", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_end_to_end_installed_plugins(tmp_path, monkeypatch):
    """The distributions are found by a fresh interpreter on its path, as installed
    ones: a broken one is disabled with one warning; ``sys.exit(0)`` in a component is
    status 3, not 0 with no output; a plugin's print stays off the JSON."""
    root = tmp_path / "site"
    root.mkdir()
    s = FakeSite(root, monkeypatch)
    s.add("evalkit-broken", "import evalkit_module_that_does_not_exist\n", ep_name="broken")
    s.add("evalkit-exits", EXITS_LATE, ep_name="exits")
    s.add("evalkit-chatty", CHATTY, ep_name="chatty")
    qrels, run = _write_data(tmp_path)

    ok = _subprocess(root, "eval", qrels, run, "-m", "ndcg(gain=loud)@10", "--format", "json", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)
    (line,) = _warnings(ok.stderr)
    assert "plugin 'broken' from evalkit-broken 1.0 (entry point 'broken') is disabled" in line
    assert "chatty: gain called on" in ok.stderr

    exited = _subprocess(root, "eval", qrels, run, "-m", "ndcg(ties=exits_late)@10", "--format", "json",
                         cwd=tmp_path)
    assert exited.returncode == 3 and exited.stdout == ""
    assert "tie policy 'exits_late' from evalkit-exits 1.0 (entry point 'exits') called sys.exit(0)" in exited.stderr
    s.cleanup()


def test_stdout_redirection_is_restored_whatever_order_threads_leave_in():
    """Two threads running plugin code at once: the first to enter leaves last or
    first, ``sys.stdout`` is the original stream afterwards (``contextlib.redirect_stdout``
    per thread could leave it pointing at standard error)."""
    import threading

    from evalkit.isolation import stdout_to_stderr

    original = sys.stdout
    a_in, b_in, a_may_leave = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def a():
        with stdout_to_stderr():
            a_in.set()
            b_in.wait(5)
            seen.append(sys.stdout is sys.stderr)
            a_may_leave.wait(5)

    def b():
        a_in.wait(5)
        with stdout_to_stderr():
            b_in.set()
        seen.append(sys.stdout is sys.stderr)  # a still inside: still redirected
        a_may_leave.set()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [True, True]
    assert sys.stdout is original


def test_checking_a_plugins_presets_loads_no_other_builtin_module(site):  # noqa: F811
    """``disable_broken_presets`` (every command, when a plugin is installed) parses the
    plugins' presets only: it leaves the built-in modules their specs do not name
    unloaded (issue 27: ``evalkit eval -m ndcg_cut.10`` with a plugin installed imports
    no other library's module). A preset that fails is the test above (an unknown name
    loads every module, for the message's list of names)."""
    from evalkit.cli.registry_args import disable_broken_presets

    site.add("evalkit-goodpreset", """
        @hookimpl
        def evalkit_register_presets(register):
            register(Preset(name="x.good", spec="ndcg(gain=exp2)@10"))
    """, ep_name="goodpreset")
    registry = build_registry()
    disable_broken_presets(registry)
    assert registry.plugins == {"goodpreset": "evalkit-goodpreset 1.0 (entry point 'goodpreset')"}
    assert not registry.disabled
    assert registry.find("preset", "x.good").spec == "ndcg(gain=exp2)@10"
    pending = set(registry._builtins.modules)
    assert {"evalkit.libraries.ranx", "evalkit.libraries.sklearn", "evalkit.libraries.trec_eval"} <= pending
    assert "evalkit.builtins.gains" not in pending  # exp2, parsed
