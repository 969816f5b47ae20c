"""The ``empty`` (IDCG = 0) and ``missing`` (qrels query absent from the run)
conventions: what each query scores, which queries the mean covers, and errors that
name the queries."""

from __future__ import annotations

import numpy as np
import pytest

import evalkit
from evalkit.errors import EvaluationError, FlavourError

# q1: a relevant document retrieved at rank 2 -> NDCG = 1/log2(3)
# q2: judged, nothing relevant (IDCG = 0) and retrieved
# q3: relevant judged document, absent from the run
# q4: nothing relevant and absent from the run
# q9: in the run only (no judgments): never evaluated
QRELS = evalkit.Qrels.from_rows([
    ("q1", "a", 0), ("q1", "b", 2),
    ("q2", "a", 0), ("q2", "b", -1),
    ("q3", "a", 1),
    ("q4", "a", 0),
])
RUN = evalkit.Run.from_rows([
    ("q1", "a", 2.0), ("q1", "b", 1.0),
    ("q2", "a", 2.0), ("q2", "c", 1.0),
    ("q9", "a", 1.0),
])
Q1 = 1 / np.log2(3)


def per_query(spec):
    res = evalkit.evaluate(QRELS, RUN, [spec])
    return dict(zip(res.qids, res.values[0, 0])), res.means()[0, 0], res.counts()[0, 0]


def test_defaults_match_trec_eval():
    """Default: empty=zero, missing=skip: mean over q1, q2 (queries in both), as trec_eval
    9.0.8 (the trec_eval name ``ndcg`` is 10.0's measure, which refuses q3, q4)."""
    values, mean, count = per_query("ndcg()")
    assert list(values) == ["q1", "q2", "q3", "q4"]  # the qrels' queries
    assert values["q1"] == pytest.approx(Q1)
    assert values["q2"] == 0.0
    assert np.isnan(values["q3"]) and np.isnan(values["q4"])
    assert count == 2
    assert mean == pytest.approx(Q1 / 2)


def test_missing_query_without_relevant_documents_is_skipped():
    """Regression: q4 (absent from the run, no relevant document) used to score the
    ``empty`` value (0) under ``missing=skip`` and so entered the mean, unlike
    trec_eval/pytrec_eval, which average over queries present in the run."""
    values, mean, count = per_query("ndcg(missing=skip)")
    assert np.isnan(values["q4"])
    values, mean, count = per_query("ndcg(empty=one,missing=skip)")
    assert np.isnan(values["q4"])
    assert values["q2"] == 1.0
    assert count == 2
    assert mean == pytest.approx((Q1 + 1) / 2)


@pytest.mark.parametrize("empty, q2, count, mean", [
    ("zero", 0.0, 2, Q1 / 2),
    ("one", 1.0, 2, (Q1 + 1) / 2),
    ("skip", np.nan, 1, Q1),
])
def test_empty_conventions(empty, q2, count, mean):
    values, got_mean, got_count = per_query(f"ndcg(empty={empty})")
    if np.isnan(q2):
        assert np.isnan(values["q2"])
    else:
        assert values["q2"] == q2
    assert values["q1"] == pytest.approx(Q1)
    assert got_count == count
    assert got_mean == pytest.approx(mean)


def test_empty_error_names_the_query():
    with pytest.raises(EvaluationError, match="q2"):
        per_query("ndcg(empty=error)")


@pytest.mark.parametrize("missing, count, mean", [
    ("skip", 2, Q1 / 2),
    ("zero", 4, Q1 / 4),  # q3 -> 0, q4 -> IDCG = 0 -> empty=zero -> 0
])
def test_missing_conventions(missing, count, mean):
    values, got_mean, got_count = per_query(f"ndcg(missing={missing})")
    assert got_count == count
    assert got_mean == pytest.approx(mean)
    if missing == "zero":
        assert values["q3"] == 0.0 and values["q4"] == 0.0


def test_missing_zero_with_empty_skip_and_one():
    """Under missing=zero, a missing query with nothing relevant follows ``empty``."""
    values, mean, count = per_query("ndcg(missing=zero,empty=skip)")
    assert values["q3"] == 0.0
    assert np.isnan(values["q4"]) and np.isnan(values["q2"])
    assert count == 2 and mean == pytest.approx(Q1 / 2)
    values, mean, count = per_query("ndcg(missing=zero,empty=one)")
    assert values["q3"] == 0.0 and values["q4"] == 1.0 and values["q2"] == 1.0
    assert mean == pytest.approx((Q1 + 1 + 0 + 1) / 4)


def test_missing_error_names_the_queries():
    with pytest.raises(EvaluationError) as err:
        per_query("ndcg(missing=error)")
    assert "q3" in str(err.value) and "q4" in str(err.value)
    assert "run" in str(err.value)


def test_no_missing_query_no_error():
    run = evalkit.Run.from_rows([(q, "a", 1.0) for q in ("q1", "q2", "q3", "q4")])
    res = evalkit.evaluate(QRELS, run, ["ndcg(missing=error)"])
    assert res.counts()[0, 0] == 4


def test_conventions_apply_to_binary_metrics():
    """recall/ap are undefined without relevant documents (empty applies); precision
    is always defined, so only ``missing`` changes it."""
    res = evalkit.evaluate(QRELS, RUN, ["recall(empty=skip)", "ap(empty=one)", "precision(missing=zero)@2"])
    rec = dict(zip(res.qids, res.values[0, 0]))
    ap = dict(zip(res.qids, res.values[0, 1]))
    prec = dict(zip(res.qids, res.values[0, 2]))
    assert rec["q1"] == 1.0 and np.isnan(rec["q2"])
    assert ap["q1"] == 0.5 and ap["q2"] == 1.0
    assert prec == {"q1": 0.5, "q2": 0.0, "q3": 0.0, "q4": 0.0}


def test_run_only_queries_are_ignored():
    res = evalkit.evaluate(QRELS, RUN, ["ndcg(missing=zero)"])
    assert "q9" not in set(res.qids)


@pytest.mark.parametrize("spec", ["ndcg(empty=maybe)", "ndcg(missing=one)", "ndcg(missing=3)"])
def test_invalid_convention_lists_choices(spec):
    with pytest.raises(FlavourError) as err:
        evalkit.parse_flavour(spec)
    msg = str(err.value)
    assert "must be one of" in msg


def test_conventions_in_canonical_form():
    f = evalkit.parse_flavour("ndcg(missing=zero,empty=skip)@5")
    assert f.convention("missing") == "zero" and f.convention("empty") == "skip"
    assert evalkit.parse_flavour(str(f)) == f
    assert "empty=skip" in str(f) and "missing=zero" in str(f)
    # defaults are not written
    assert "empty" not in str(evalkit.parse_flavour("ndcg(empty=zero,missing=skip)"))


# --------------------------------------------------------------------------- negative grades
# q1 sorted as trec_eval does (score descending, then docno descending): b (grade -2),
# c (1), a (3), d (unjudged)
NEG_QRELS = evalkit.Qrels.from_rows([("q1", "a", 3), ("q1", "b", -2), ("q1", "c", 1), ("q2", "a", 1)])
NEG_RUN = evalkit.Run.from_rows([("q1", "b", 3.0), ("q1", "a", 2.0), ("q1", "c", 2.0), ("q1", "d", 1.0),
                                 ("q2", "a", 1.0)])


@pytest.mark.parametrize("spec, want", [
    # trec_eval: a negative grade is judged non-relevant, gain 0 (the default)
    ("dcg", 1 / np.log2(3) + 3 / 2),
    ("dcg(negative=zero)", 1 / np.log2(3) + 3 / 2),
    # scikit-learn dcg_score: the label is the (linear) gain, negative or not
    ("dcg(negative=gain)", -2 + 1 / np.log2(3) + 3 / 2),
    ("dcg(gain=exp2,negative=gain)", (2.0 ** -2 - 1) + 1 / np.log2(3) + 7 / 2),
    # min_grade above 0 still gives the grades below it gain 0
    ("dcg(negative=gain,min_grade=2)", 3 / 2),
    ("dcg(negative=gain)@1", -2.0),
    # TF-Ranking's invalid label: b leaves the ranking, c and a move up a rank
    ("dcg(negative=drop)", 1 + 3 / np.log2(3)),
    ("dcg(negative=drop)@1", 1.0),
    ("ndcg(negative=drop)", (1 + 3 / np.log2(3)) / (3 + 1 / np.log2(3))),
    ("ndcg(gain=exp2,idcg=returned,negative=drop)@2", (1 + 7 / np.log2(3)) / (7 + 1 / np.log2(3))),
])
def test_negative_convention_values(spec, want):
    res = evalkit.evaluate(NEG_QRELS, NEG_RUN, [spec])
    assert res.per_query(0, 0)["q1"] == pytest.approx(want, abs=1e-12)


def test_negative_drop_of_every_document_leaves_an_empty_ranking():
    """A query whose documents all have negative grades has nothing left under
    negative=drop: IDCG 0, so it scores by ``empty`` (TF-Ranking: 0, counted in the mean)
    and is not absent from the run (``missing`` does not apply)."""
    qrels = evalkit.Qrels.from_rows([("q1", "a", -1), ("q1", "b", -1), ("q2", "a", 1)])
    run = evalkit.Run.from_rows([("q1", "a", 2.0), ("q1", "b", 1.0), ("q2", "a", 1.0)])
    res = evalkit.evaluate(qrels, run, ["ndcg(gain=exp2,idcg=returned,negative=drop)@5",
                                        "ndcg(gain=exp2,idcg=returned,negative=drop,empty=one,missing=skip)@5"])
    assert res.per_query(0, 0) == {"q1": 0.0, "q2": 1.0}
    assert res.per_query(0, 1) == {"q1": 1.0, "q2": 1.0}


@pytest.mark.parametrize("rule, grade, library_says", [
    # TREC qrels hold integer grades (evalkit.read_qrels refuses fractions, as trec_eval)
    ("lightgbm", "31", "Label 31 is not less than the number of label mappings (31)"),
    ("lightgbm", "-1", "Label should be non-negative (met -1.000000)"),
    ("lightgbm", "4294967296", "label should be int type (met 4294967296.000000)"),
    ("xgboost", "32", "Relevance degress must be lesser than or equal to 31"),
    ("xgboost", "-2", "label must be either 0 or positive integer"),
])
def test_grades_rule_names_the_judgment(tmp_path, rule, grade, library_says):
    path = tmp_path / "qrels.txt"
    path.write_text(f"q1 0 a 3\nq1 0 b {grade}\nq1 0 c 1\nq2 0 a 1\n")
    qrels = evalkit.read_qrels(path)
    with pytest.raises(evalkit.errors.InvalidGradeError) as err:
        evalkit.evaluate(qrels, NEG_RUN, [f"ndcg(gain=exp2,idcg=returned,grades={rule})@10"])
    msg = str(err.value)
    assert f"grades={rule}" in msg and library_says in msg
    assert "query 'q1', document 'b'" in msg and f"{path}:2" in msg


def test_grades_rule_reads_the_float32_integer():
    """Grades LightGBM and XGBoost accept read as the float32 integer their gain reads:
    2.00000001 is 2 for both, 2.0000005 is 2 for XGBoost (within kRtEps 1e-6)."""
    import evalkit.arrays as ea

    s = np.array([[3.0, 2.0, 1.0]])
    want = (3 / np.log2(3) + 1 / 2) / (3 + 1 / np.log2(3))  # labels 0, 2, 1
    for rule, grade in (("lightgbm", 2.00000001), ("xgboost", 2.00000001), ("xgboost", 2.0000005)):
        y = np.array([[0, grade, 1]])
        spec = f"ndcg(gain=exp2,idcg=returned,grades={rule})"
        assert ea.score(y, s, flavour=spec)[0] == pytest.approx(want, abs=1e-15)
        assert ea.score(y, s, flavour="ndcg(gain=exp2,idcg=returned)")[0] != pytest.approx(want, abs=1e-10)
    with pytest.raises(evalkit.errors.InvalidGradeError, match=r"y_true\[0, 1\] = 2.0000005"):
        ea.score(np.array([[0, 2.0000005, 1]]), s, flavour="ndcg(gain=exp2,idcg=returned,grades=lightgbm)")


def test_negative_error_names_the_judgment(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 a 3\nq1 0 b -2\nq1 0 c 1\nq2 0 a 1\n")
    qrels = evalkit.read_qrels(path)
    with pytest.raises(EvaluationError) as err:
        evalkit.evaluate(qrels, NEG_RUN, ["ndcg(negative=error)@10"])
    msg = str(err.value)
    assert "negative=error" in msg and "grade -2 is negative" in msg
    assert "query 'q1', document 'b'" in msg and f"{path}:2" in msg
    # a qrels without negative grades evaluates as negative=zero does
    ok = evalkit.Qrels.from_rows([("q1", "a", 3), ("q1", "c", 1)])
    res = evalkit.evaluate(ok, NEG_RUN, ["ndcg(negative=error)", "ndcg"])
    assert res.values[0, 0, 0] == res.values[0, 1, 0] == pytest.approx((1 / np.log2(3) + 3 / 2) / (3 + 1 / np.log2(3)))


@pytest.mark.parametrize("spec", ["ndcg(idcg=judged_at_returned,negative=gain)", "err(negative=gain)",
                                  "ndcg_rel(negative=gain)"])
def test_negative_gain_refused_with_an_ideal_ranking(spec):
    with pytest.raises(FlavourError, match="negative=gain is defined only for dcg"):
        evalkit.parse_flavour(spec)


# q1: e (unjudged) 5.0, b (-2) 4.0, a (3) 3.0, d (unjudged) 2.5, c (1) 2.0 -- no ties
J_QRELS = evalkit.Qrels.from_rows([("q1", "a", 3), ("q1", "b", -2), ("q1", "c", 1)])
J_RUN = evalkit.Run.from_rows([("q1", "e", 5.0), ("q1", "b", 4.0), ("q1", "a", 3.0), ("q1", "d", 2.5),
                               ("q1", "c", 2.0)])


def test_judged_only_drops_negative_grades_as_trec_eval_does():
    """trec_eval -J (form_res_rels.c keeps rel >= 0): a negative qrels grade is "not in
    the pool" and leaves the ranking with the unjudged documents; pytrec_eval's
    judged_docs_only_flag runs that code."""
    import pytrec_eval

    ref = pytrec_eval.RelevanceEvaluator({"q1": {"a": 3, "b": -2, "c": 1}}, {"ndcg"}, judged_docs_only_flag=True)
    want = ref.evaluate({"q1": {"e": 5.0, "b": 4.0, "a": 3.0, "d": 2.5, "c": 2.0}})["q1"]["ndcg"]
    res = evalkit.evaluate(J_QRELS, J_RUN, ["ndcg(judged_only=yes)"])
    assert res.per_query(0, 0)["q1"] == pytest.approx(want, abs=1e-12)
    assert want == pytest.approx(1.0)  # a then c: b went with e and d


@pytest.mark.parametrize("spec, want", [
    # negative=gain: b is a judgment (gain -2) and stays; only e and d (no grade) leave:
    # b at rank 1, a at 2, c at 3
    ("dcg(negative=gain,judged_only=yes)", -2 + 3 / np.log2(3) + 1 / 2),
    ("dcg(negative=gain,judged_only=yes)@2", -2 + 3 / np.log2(3)),
    # negative=zero (trec_eval): b leaves too: a at rank 1, c at 2
    ("dcg(judged_only=yes)", 3 + 1 / np.log2(3)),
    # ndcg with the returned list's ideal (CatBoost's): ideal of b, a, c is a, c, b
    ("ndcg(idcg=returned,negative=gain,judged_only=yes)",
     (-2 + 3 / np.log2(3) + 1 / 2) / (3 + 1 / np.log2(3) - 2 / 2)),
])
def test_judged_only_keeps_negative_grades_under_negative_gain(spec, want):
    res = evalkit.evaluate(J_QRELS, J_RUN, [spec])
    assert res.per_query(0, 0)["q1"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("spec, want", [
    # worked by hand from CatBoost's dcg.cpp (the catboost.* presets are checked against
    # CatBoost itself in test_presets_libraries.py): b (3.0) first, then the tie a (3) /
    # c (1) at 2.0 with the lower grade first, then d (unjudged, gain 0); the ideal
    # orders the returned grades 3, 1, 0, -2
    ("ndcg(idcg=returned,ties=pessimistic(negative=gain),negative=gain)",
     (-2 + 1 / np.log2(3) + 3 / 2) / (3 + 1 / np.log2(3) + 0 - 2 / np.log2(5))),
    # cut at 2: the ideal's first two are a, c; the run's b, c
    ("ndcg(idcg=returned,ties=pessimistic(negative=gain),negative=gain)@2",
     (-2 + 1 / np.log2(3)) / (3 + 1 / np.log2(3))),
])
def test_negative_gain_ndcg_with_the_returned_ideal(spec, want):
    res = evalkit.evaluate(NEG_QRELS, NEG_RUN, [spec])
    assert res.per_query(0, 0)["q1"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("spec, empty, want", [
    # only negative grades: the ideal DCG is < 0, an undefined query (the empty convention)
    ("ndcg(idcg=returned,negative=gain)", "one", 1.0),
    ("ndcg(idcg=returned,negative=gain)", "zero", 0.0),
])
def test_negative_gain_ideal_below_zero_is_undefined(spec, empty, want):
    qrels = evalkit.Qrels.from_rows([("q1", "a", -1), ("q1", "b", -2)])
    run = evalkit.Run.from_rows([("q1", "a", 1.0), ("q1", "b", 2.0)])
    res = evalkit.evaluate(qrels, run, [spec.replace(")", f",empty={empty})")])
    assert res.per_query(0, 0)["q1"] == want


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "optimistic(negative=zero)"])
def test_negative_gain_refuses_ties_that_rank_negative_grades_as_zero(ties):
    with pytest.raises(FlavourError, match=r"negative=gain.*write ties=(pessimistic|optimistic)\(negative=gain\)"):
        evalkit.parse_flavour(f"dcg(ties={ties},negative=gain)")
    f = evalkit.parse_flavour(f"dcg(ties={ties.split('(')[0]}(negative=gain),negative=gain)")
    assert evalkit.parse_flavour(str(f)) == f


@pytest.mark.parametrize("spec", ["ndcg(idcg=judged_at_returned,negative=gain)", "ndcg(idcg=listed,negative=gain)"])
def test_negative_gain_refused_with_an_ideal_over_the_judgments(spec):
    with pytest.raises(FlavourError, match="would take in negative judgments the run never returned"):
        evalkit.parse_flavour(spec)


def test_negative_gain_with_the_judged_ideal_by_hand():
    """idcg=judged under negative=gain (microsoft/recommenders' ndcg_at_k, whose ideal is
    every row of rating_true by rating, first k): the negative judgment b (-2) counts
    -2 in the DCG and takes the last place of the ideal (3, 1, -2), within k = 3; with
    k = 2 it is cut. Run: e (unjudged), b, a, d (unjudged), c."""
    d = lambda r: 1 / np.log2(r + 1)  # noqa: E731
    dcg = -2 * d(2) + 3 * d(3) + 1 * d(5)
    res = evalkit.evaluate(J_QRELS, J_RUN, ["ndcg(idcg=judged,negative=gain)@5", "ndcg(idcg=judged,negative=gain)@2"])
    assert res.values[0, 0, 0] == pytest.approx(dcg / (3 * d(1) + 1 * d(2) - 2 * d(3)), abs=1e-15)
    assert res.values[0, 1, 0] == pytest.approx((-2 * d(2)) / (3 * d(1) + 1 * d(2)), abs=1e-15)


def test_negative_convention_canonical_form():
    assert str(evalkit.parse_flavour("dcg(negative=zero)")) == str(evalkit.parse_flavour("dcg"))
    assert "negative" not in str(evalkit.parse_flavour("ndcg(negative=zero)@5"))
    f = evalkit.parse_flavour("dcg(negative=gain)@5")
    assert str(f) == "dcg(gain=linear,discount=log2,ties=trec_eval,negative=gain)@5"
    assert evalkit.parse_flavour(str(f)) == f
    # negative is a stage family: an unknown rule is an unknown component, with the known ones
    with pytest.raises(FlavourError, match="unknown negative 'clamp' .*known: drop, error, gain, zero"):
        evalkit.parse_flavour("dcg(negative=clamp)")


def test_missing_error_is_its_own_error_class():
    """``missing=error`` raises :class:`MissingQueriesError` (an ``EvaluationError``), which
    the CLI reads to add trec_eval 10.0's behaviour to the message, instead of matching text."""
    from evalkit.errors import MissingQueriesError

    qrels = evalkit.Qrels.from_rows([("1", "a", 1), ("2", "b", 1)])
    run = evalkit.Run.from_rows([("1", "a", 1.0)], name="r")
    with pytest.raises(MissingQueriesError, match="has no results for qrels queries: 2"):
        evalkit.evaluate(qrels, run, ["ndcg(missing=error)@10"])
    assert issubclass(MissingQueriesError, EvaluationError)
