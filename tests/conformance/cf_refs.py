"""References of the conformance suite, run as their users run them.

Each function takes a :class:`cf_data.Case` (and a cutoff ``k`` where the measure has
one) and returns a :class:`Ref`: the reference's value per query, its own mean where
it prints one, and the queries it refused (with the reason). C and Perl programs are
built or run from their released sources obtained from PyPI at test time; builds are
cached under the pytest cache directory (:data:`CACHE`).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np

#: build cache (set by the suite's fixture to ``<pytest cache>/d/conformance``)
CACHE: Path = Path(tempfile.gettempdir()) / "evalkit-conformance"


class NotApplicable(Exception):
    """The reference has nothing to compare for this dataset and cutoff (a cited
    vector exists only for the cutoffs its source printed)."""


@dataclass
class Ref:
    per_query: dict
    mean: float | None = None  # the reference's own mean; None: mean of per_query
    refused: dict = field(default_factory=dict)  # qid -> reason
    #: the reference refuses the whole input (its error, first line): evalkit must raise too
    raised: str | None = None


#: distributions installed as their CPU build, which ships the same module and version
#: (``xgboost-cpu`` is ``xgboost`` without the CUDA code and nvidia-nccl-cu12)
CPU_BUILDS = {"xgboost": "xgboost-cpu"}


def version(dist: str) -> str:
    """``"<dist> <version>"`` of the installed distribution (its CPU build if that is what is
    installed: the same release of the same module)."""
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        if dist not in CPU_BUILDS:
            raise
        return f"{dist} {metadata.version(CPU_BUILDS[dist])}"


def downloaded(name: str, version_: str, suffix: str = ".tar.gz") -> Path:
    """A source the test environment downloaded when it was made (``noxfile.py``:
    ``pip download`` into ``$EVALKIT_REFERENCE_CACHE/downloads``); no test downloads.

    :raises FileNotFoundError: not downloaded (the message names the session to run).
    """
    import reference_programs

    path = reference_programs.cache_dir() / "downloads" / f"{name}-{version_}{suffix}"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: the test environment downloads it when it is made (nox, see noxfile.py; by "
            f"hand: pip download --no-deps --no-binary :all: --dest {path.parent} {name}=={version_})")
    return path


def _work(case, tag: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=f"cf-{tag}-"))
    return folder


# ----------------------------------------------------------------------------- pytrec_eval

_PYTREC: dict = {}


def pytrec_eval(measure: str):
    """pytrec_eval-terrier (trec_eval 9.0.8 compiled in); ``measure`` as trec_eval
    prints it (``ndcg``, ``ndcg_cut_10``, ``ndcg_rel``, ``Rndcg``)."""
    def ref(case, k=None) -> Ref:
        import pytrec_eval as pte

        name = measure.format(k=k)
        key = (case.name, name)
        if key not in _PYTREC:
            qrels: dict = {}
            for q, d, g in case.qrels_rows:
                qrels.setdefault(q, {})[d] = int(g)
            run: dict = {}
            for q, d, s in case.run_rows:
                run.setdefault(q, {})[d] = float(s)
            head, _, cut = name.rpartition("_")
            arg = f"{head}.{cut}" if cut.isdigit() and head in ("ndcg_cut", "P", "map_cut", "recall") else name
            out = pte.RelevanceEvaluator(qrels, {arg}).evaluate(run)
            _PYTREC[key] = Ref({q: v[name] for q, v in out.items()})
        return _PYTREC[key]
    return ref


# ----------------------------------------------------------------------------- ir_measures

_IRM: dict = {}


def ir_measures(measure: str):
    """``ir_measures.iter_calc([measure], qrels, run)`` on TREC files read with
    ``ir_measures.read_trec_qrels`` / ``read_trec_run`` (its default providers), and
    ``calc_aggregate`` for the mean."""
    def ref(case, k=None) -> Ref:
        import ir_measures as irm

        name = measure.format(k=k)
        key = (case.name, name)
        if key not in _IRM:
            folder = _work(case, "irm")
            qp, rp = case.write(folder)
            m = irm.parse_measure(name)
            try:
                per = {r.query_id: float(r.value) for r in
                       irm.iter_calc([m], list(irm.read_trec_qrels(str(qp))), list(irm.read_trec_run(str(rp))))}
                mean = float(irm.calc_aggregate([m], list(irm.read_trec_qrels(str(qp))),
                                                list(irm.read_trec_run(str(rp))))[m])
            except subprocess.CalledProcessError as exc:  # its gdeval provider: gdeval.pl died
                _IRM[key] = Ref({}, raised=f"CalledProcessError: perl gdeval.pl exited {exc.returncode}")
            else:
                _IRM[key] = Ref(per, mean)
            shutil.rmtree(folder, ignore_errors=True)
        return _IRM[key]
    return ref


# ----------------------------------------------------------------------------- trec_eval vectors

def trec_eval_vectors(out_file: str, measure: str, only: str | None = None):
    """trec_eval's own expected output (``-q``), as shipped in its test suite;
    printed to 4 decimals. ``all`` is trec_eval's mean. ``only``: the case the file is
    the output for (any other: :class:`NotApplicable`)."""
    def ref(case, k=None) -> Ref:
        from cf_data import shared

        if only is not None and case.name != only:
            raise NotApplicable(f"{out_file} is trec_eval's output for {only}, not {case.name}")

        name = measure.format(k=k)
        per_query, mean = {}, None
        for line in shared("trec_eval_test", out_file).read_text().splitlines():
            parts = [p.strip() for p in line.split("\t")]
            if len(parts) == 3 and parts[0] == name:
                if parts[1] == "all":
                    mean = float(parts[2])
                else:
                    per_query[parts[1]] = float(parts[2])
        if not per_query:
            raise AssertionError(f"{out_file} has no '{name}' line")
        return Ref(per_query, mean)
    return ref


# ----------------------------------------------------------------------------- scikit-learn

def sklearn(fn_name: str, ignore_ties: bool):
    """``sklearn.metrics.<fn_name>(y_true[None], y_score[None], k=k, ignore_ties=...)``
    per query (one row each: rows of one call must have equal length)."""
    def ref(case, k=None) -> Ref:
        from sklearn import metrics

        fn = getattr(metrics, fn_name)
        per_query, refused = {}, {}
        for q, y, s in zip(*case.arrays()):
            try:
                per_query[q] = float(fn(y[None], s[None], k=k, ignore_ties=ignore_ties))
            except ValueError as exc:
                refused[q] = f"ValueError: {exc}"
        return Ref(per_query, refused=refused)
    return ref


# ----------------------------------------------------------------------------- ranx

def ranx(metric: str, make_comparable: bool = True):
    """ranx.evaluate on ``ranx.Qrels``/``ranx.Run`` built from dicts in line order;
    ``make_comparable=False`` is ranx's default call, which asserts equal query sets."""
    def ref(case, k=None) -> Ref:
        import ranx as rx

        qrels: dict = {}
        for q, d, g in case.qrels_rows:
            qrels.setdefault(q, {})[d] = int(g)
        run: dict = {}
        for q, d, s in case.run_rows:
            run.setdefault(q, {})[d] = float(s)
        name = metric + (f"@{k}" if k else "")
        rq, rr = rx.Qrels(qrels), rx.Run(run)
        try:
            mean = rx.evaluate(rq, rr, name, make_comparable=make_comparable)
        except AssertionError as exc:
            return Ref({}, raised=f"AssertionError: {str(exc).splitlines()[0]}")
        return Ref({q: float(v) for q, v in rr.scores[name].items()}, float(mean))
    return ref


# ----------------------------------------------------------------------------- LightGBM

def _lgb_eval(y, s, groups, ks):
    import lightgbm as lgb

    data = lgb.Dataset(np.zeros((len(y), 1)), label=y, group=groups, init_score=s,
                       params={"verbose": -1})
    booster = lgb.Booster({"objective": "lambdarank", "metric": "ndcg", "eval_at": list(ks),
                           "verbose": -1}, data)
    out = {r.metric_name: r.metric_value for r in booster.eval_train()}
    return {k: out[f"ndcg@{k}"] for k in ks}


_LTR: dict = {}


def lightgbm(ks):
    """LightGBM's 'ndcg' metric (``eval_at`` = ``ks``, all at once) on scores we control
    (an untrained booster scores each row with its init_score); per query: one Dataset
    per group; mean: all groups in one Dataset."""
    def ref(case, k=None) -> Ref:
        import lightgbm as lgb

        key = ("lightgbm", case.name)
        if key not in _LTR:
            qids, ys, ss = case.arrays()
            try:  # LightGBM stops on a label CheckLabel refuses (Log::Fatal -> LightGBMError)
                mean = _lgb_eval(np.concatenate(ys), np.concatenate(ss), [len(y) for y in ys], ks)
            except lgb.basic.LightGBMError as exc:
                _LTR[key] = str(exc).splitlines()[0]
            else:
                per = {q: _lgb_eval(y, s, [len(y)], ks) for q, y, s in zip(qids, ys, ss)}
                _LTR[key] = (per, mean)
        if isinstance(_LTR[key], str):
            return Ref({}, raised="LightGBMError: " + _LTR[key])
        per, mean = _LTR[key]
        return Ref({q: v[k] for q, v in per.items()}, mean[k])
    return ref


# ----------------------------------------------------------------------------- XGBoost

def _xgb_eval(y, s, groups, metrics, params):
    import xgboost as xgb

    data = xgb.DMatrix(np.zeros((len(y), 1)), label=y, base_margin=s)
    data.set_group(groups)
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": list(metrics), **params}, data,
                        num_boost_round=0)
    fields = booster.eval(data).split("\t")[1:]
    return {f.rsplit(":", 1)[0][len("eval-"):]: float(f.rsplit(":", 1)[1]) for f in fields}


def xgboost(metric: str, ks, **params):
    """XGBoost's ranking metric ``metric`` (``ndcg@{k}``, ``ndcg@{k}-``) for every k of
    ``ks`` at once, on margins we control (no boosting round); per query: one DMatrix per
    group; mean: all groups in one DMatrix."""
    names = [metric.format(k=k) for k in ks]

    def ref(case, k=None) -> Ref:
        import xgboost as xgb

        key = ("xgboost", metric, tuple(sorted(params.items())), case.name)
        if key not in _LTR:
            qids, ys, ss = case.arrays()
            try:  # XGBoost stops on a label CheckNDCGLabels refuses (CHECK -> XGBoostError)
                mean = _xgb_eval(np.concatenate(ys), np.concatenate(ss), [len(y) for y in ys], names, params)
            except xgb.core.XGBoostError as exc:
                _LTR[key] = str(exc).splitlines()[0].split(": ", 1)[-1]  # without the timestamp
            else:
                per = {q: _xgb_eval(y, s, [len(y)], names, params) for q, y, s in zip(qids, ys, ss)}
                _LTR[key] = (per, mean)
        if isinstance(_LTR[key], str):
            return Ref({}, raised="XGBoostError: " + _LTR[key])
        per, mean = _LTR[key]
        name = metric.format(k=k)
        return Ref({q: v[name] for q, v in per.items()}, mean[name])
    return ref


# ----------------------------------------------------------------------------- torchmetrics

def torchmetrics(case, k=None) -> Ref:
    """``RetrievalNormalizedDCG(top_k=k)`` (float32 scores, int64 targets) on each query
    alone, and over all queries for the mean. Its default empty_target_action='neg'
    scores 0 a query whose targets sum to 0 (retrieval/base.py ``compute``: ``if not
    mini_target.sum()``), which with negative targets (1 and -1) is not a query without
    relevant documents: there the functional ``retrieval_normalized_dcg`` gives another
    number, and the preset follows the class."""
    import torch
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    qids, ys, ss = case.arrays()
    per_query = {}
    for q, y, s in zip(qids, ys, ss):
        one = RetrievalNormalizedDCG(top_k=k)
        per_query[q] = float(one(torch.tensor(s, dtype=torch.float32), torch.tensor(y, dtype=torch.long),
                                 indexes=torch.zeros(len(y), dtype=torch.long)))
    index = torch.tensor(np.repeat(np.arange(len(qids)), [len(y) for y in ys]))
    metric = RetrievalNormalizedDCG(top_k=k)
    mean = float(metric(torch.tensor(np.concatenate(ss), dtype=torch.float32),
                        torch.tensor(np.concatenate(ys), dtype=torch.long), indexes=index))
    return Ref(per_query, mean)


# ----------------------------------------------------------------------------- gdeval.pl

def gdeval_script() -> Path:
    import ir_measures

    path = Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: ir_measures no longer ships gdeval.pl")
    if shutil.which("perl") is None:
        raise FileNotFoundError("perl is not installed (gdeval.pl needs it)")
    return path


_GDEVAL: dict = {}


def gdeval(column: int, *, k_override: int | None = None):
    """``perl gdeval.pl qrels run k`` (the copy ir_measures ships); ``column`` 2 is
    nDCG@k, 3 is ERR@k; prints 5 decimals; the ``amean`` line is its mean."""
    def ref(case, k=None) -> Ref:
        k = k_override or k
        key = (case.name, k)
        if key not in _GDEVAL:
            folder = _work(case, "gdeval")
            qp, rp = case.write(folder)
            done = subprocess.run(["perl", str(gdeval_script()), str(qp), str(rp), str(k)],
                                  capture_output=True, text=True)
            shutil.rmtree(folder, ignore_errors=True)
            if done.returncode:  # gdeval.pl dies (a format error of the qrels or the run)
                message = done.stderr.strip().splitlines()[0].rsplit(": ", 1)[-1]
                _GDEVAL[key] = message.replace(str(folder) + os.sep, "")  # no temporary path on the page
            else:
                _GDEVAL[key] = [line.split(",") for line in done.stdout.strip().splitlines()[1:]]
        rows = _GDEVAL[key]
        if isinstance(rows, str):
            return Ref({}, raised="gdeval.pl: " + rows)
        per_query = {r[1]: float(r[column]) for r in rows if r[1] != "amean"}
        mean = [float(r[column]) for r in rows if r[1] == "amean"]
        return Ref(per_query, mean[0] if mean else None)
    return ref


# ----------------------------------------------------------------------------- ndeval

NDEVAL_DIST = "pyndeval"


def ndeval_binary() -> Path:
    """ndeval built from ``src/ndeval.c`` of pyndeval's sdist (the version installed),
    downloaded when the test environment was made (:func:`downloaded`) and compiled with
    ``cc -O2 ... -lm``; cached."""
    ver = metadata.version(NDEVAL_DIST)
    folder = CACHE / f"ndeval-{ver}"
    binary = folder / "ndeval"
    if binary.exists():
        return binary
    sdist = downloaded(NDEVAL_DIST, ver)
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as tar:
        member = tar.getmember(f"pyndeval-{ver}/src/ndeval.c")
        (folder / "ndeval.c").write_bytes(tar.extractfile(member).read())
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise FileNotFoundError("no C compiler (cc/gcc) to build ndeval")
    subprocess.run([cc, "-O2", "-w", "-o", str(binary), str(folder / "ndeval.c"), "-lm"],
                   check=True, capture_output=True, text=True)
    return binary


_NDEVAL: dict = {}


def ndeval(measure: str, *, traditional: bool):
    """``ndeval [-traditional] qrels run`` (CSV: runid,topic,measures...; ``amean``)."""
    def ref(case, k=None) -> Ref:
        key = (case.name, traditional)
        if key not in _NDEVAL:
            folder = _work(case, "ndeval")
            qp, rp = case.write(folder)
            cmd = [str(ndeval_binary())] + (["-traditional"] if traditional else []) + [str(qp), str(rp)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            _NDEVAL[key] = list(csv.DictReader(io.StringIO(out)))
            shutil.rmtree(folder, ignore_errors=True)
        name = measure.format(k=k)
        rows = _NDEVAL[key]
        per_query = {r["topic"]: float(r[name]) for r in rows if r["topic"] != "amean"}
        mean = [float(r[name]) for r in rows if r["topic"] == "amean"]
        return Ref(per_query, mean[0] if mean else None)
    return ref


def pyndeval(measure: str):
    """``pyndeval.ndeval(qrels, run, measures=[...])`` (what ir_measures runs)."""
    def ref(case, k=None) -> Ref:
        import pyndeval as pn

        name = measure.format(k=k)
        out = pn.ndeval(list(case.subtopic_rows), list(case.run_rows), measures=[name])
        return Ref({q: float(v[name]) for q, v in out.items()})
    return ref


def by_case(refs: dict):
    """A different reference per dataset: ``{case name: ref}``."""
    def ref(case, k=None) -> Ref:
        return refs[case.name](case, k)
    return ref


# ----------------------------------------------------------------------------- cited vectors

def vectors(table: dict):
    """Values printed by a paper or a reference's own tests: ``{(case, k): {qid: value}}``."""
    def ref(case, k=None) -> Ref:
        if (case.name, k) not in table:
            raise NotApplicable(f"no cited vector for {case.name} at k={k}")
        return Ref(dict(table[(case.name, k)]))
    return ref


# ----------------------------------------------------------------------------- expectations over tie orders

def expected_over_tie_orders(gain, discount, ideal: str, *, shuffles: int = 0, seed: int = 0,
                             empty: float = 0.0, complement: bool = False, float32: bool = False,
                             invalid_below_zero: bool = False):
    """E[NDCG@k] over the orders of tied documents, for a reference that shuffles ties
    at random (TF-Ranking's ``shuffle_ties=True``): exhaustively over all orders when
    there are at most 720 of them (one tie block of up to 6 documents), otherwise the mean
    over ``shuffles`` random orders (``Ref.mean`` is exact either way: the suite's
    tolerance for sampled queries comes from their spread).

    ``gain(label)``, ``discount(rank)`` (rank from 1) and ``ideal`` = ``returned`` (IDCG
    from the list's own labels) as in TF-Ranking's ``metrics_test.py`` ``_dcg``;
    ``empty``: the value when the IDCG is 0 (allRank's ``filler_value`` 1); ``complement``:
    ``1 - NDCG`` (TorchRec); ``float32``: scores compared as ``float32`` (torch tensors),
    so scores equal in ``float32`` are tied; ``invalid_below_zero``: a label < 0 is an
    invalid entry (TF-Ranking utils.py ``is_label_valid``, metrics_impl.py
    ``_prepare_and_validate_params``: label set to 0, prediction below the list's minimum,
    placed after every valid entry by ``sort_by_scores``): it adds no gain and takes no
    rank from a valid entry, so it is taken out of the list here."""
    def one(labels, k):
        n = len(labels) if k is None else min(k, len(labels))
        dcg = sum(gain(labels[i]) * discount(i + 1) for i in range(n))
        best = sorted(labels, reverse=True)
        idcg = sum(gain(best[i]) * discount(i + 1) for i in range(n))
        value = dcg / idcg if idcg > 0 else empty
        return 1.0 - value if complement else value

    def ref(case, k=None) -> Ref:
        rng = np.random.default_rng(seed)
        per_query, spread = {}, {}
        for q, y, s in zip(*case.arrays()):
            if invalid_below_zero:
                y, s = y[y >= 0], s[y >= 0]
            if float32:
                s = s.astype(np.float32)
            order = np.argsort(-s, kind="stable")
            blocks = [list(g) for _, g in itertools.groupby(order, key=lambda i: s[i])]
            n_orders = math.prod(math.factorial(len(b)) for b in blocks)
            if n_orders <= 720:
                vals = [one([y[i] for b in perm for i in b], k)
                        for perm in itertools.product(*(itertools.permutations(b) for b in blocks))]
                per_query[q] = float(np.mean(vals))
            else:
                vals = []
                for _ in range(shuffles):
                    labels = [y[i] for b in blocks for i in rng.permutation(b)]
                    vals.append(one(labels, k))
                per_query[q] = float(np.mean(vals))
                spread[q] = float(np.std(vals) / math.sqrt(len(vals)))
        out = Ref(per_query)
        out.spread = spread
        return out
    return ref


def stable_port(metric: str, max_grade: int = 4):
    """RankLib 2.x (not installable here: no Java package in the reachable registries),
    from the cited lines: ``Ranker.rank`` is a stable merge sort by score descending;
    NDCGScorer/DCGScorer: gain 2^l - 1, discount 1/log2(i+2), ideal = the list's own
    labels sorted, cut at k; IDCG 0 scores 0; ERRScorer: R = (2^l - 1)/2^max_grade."""
    def ref(case, k=None) -> Ref:
        per_query = {}
        for q, y, s in zip(*case.arrays()):
            labels = [y[i] for i in np.argsort(-s, kind="stable")]
            n = len(labels) if k is None else min(k, len(labels))
            if metric == "ndcg":
                dcg = sum((2.0 ** labels[i] - 1) / math.log2(i + 2) for i in range(n))
                best = sorted(labels, reverse=True)
                idcg = sum((2.0 ** best[i] - 1) / math.log2(i + 2) for i in range(n))
                per_query[q] = dcg / idcg if idcg > 0 else 0.0
            else:
                err, p = 0.0, 1.0
                for i in range(n):
                    r = (2.0 ** labels[i] - 1) / 2.0 ** max_grade
                    err += p * r / (i + 1)
                    p *= 1 - r
                per_query[q] = err
        return Ref(per_query)
    return ref


# ----------------------------------------------------------------------------- Apache Spark (pyspark)

_SPARK: dict = {}


def _spark():
    """One local Spark session (``local[1]``) for the suite's Spark references."""
    if "session" not in _SPARK:
        from evalkit.spark import session

        s = session("local[1]", {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "1",
                                 "spark.default.parallelism": "1"})
        s.sparkContext.setLogLevel("ERROR")
        _SPARK["session"] = s
    return _SPARK["session"]


def _spark_rows(case, k=None):
    """Per query of the run, as a Spark user builds MLlib's input: ``(predicted docnos
    by score descending, tied documents in the run's order; the judged docnos with a
    positive grade; every judged docno in the qrels' order; their grades)``; with
    ``k``, the prediction array cut to its first ``k`` (recommenders' top k)."""
    by_q: dict = {}  # the users of both predictions and labels: the join a Spark user writes
    for i, (q, d, s) in enumerate(case.run_rows):
        by_q.setdefault(q, []).append((-float(s), i, d))
    judged: dict = {}
    for q, d, g in case.qrels_rows:
        judged.setdefault(q, []).append((d, float(g)))
    out = {}
    for q, preds in by_q.items():
        if q not in judged:
            continue
        pred = [d for _, _, d in sorted(preds)]
        if k is not None:
            pred = pred[:k]
        lab = judged.get(q, [])
        out[q] = (pred, [d for d, g in lab if g > 0], [d for d, _ in lab], [g for _, g in lab])
    return out


def _jvm_ranking_metrics(rows):
    """The JVM's ``org.apache.spark.mllib.evaluation.RankingMetrics`` over
    ``(pred, labels, relevance)`` triples (pyspark's wrapper drops relevance values) or
    ``(pred, labels)`` pairs (binary)."""
    sc = _spark().sparkContext
    jvm, gateway = sc._jvm, sc._gateway

    def array(values, cls):
        out = gateway.new_array(cls, len(values))
        for i, v in enumerate(values):
            out[i] = v
        return out

    triples = jvm.java.util.ArrayList()
    for pred, labels, *rel in rows:
        p, lab = array(pred, jvm.java.lang.Object), array(labels, jvm.java.lang.Object)
        triples.add(jvm.scala.Tuple3(p, lab, array([float(r) for r in rel[0]], jvm.double)) if rel
                    else jvm.scala.Tuple2(p, lab))
    rdd = sc._jsc.parallelize(triples, 1).rdd()
    return jvm.org.apache.spark.mllib.evaluation.RankingMetrics(rdd, jvm.scala.reflect.ClassTag.AnyRef())


def spark_mllib(graded: bool, *, top_k: bool = False):
    """pyspark's ``RankingMetrics(rdd).ndcgAt(k)`` (binary) or the JVM's graded
    ``RankingMetrics`` (``graded``): one RDD over every query for Spark's own mean and,
    for the per-query values, one RDD per query given to the JVM's ``RankingMetrics``
    (pairs for binary: pyspark's wrapper cannot infer the type of a lone empty ground
    truth); ``top_k``: the prediction arrays cut to ``k`` first (microsoft/recommenders'
    ``_get_top_k_items``)."""
    def ref(case, k=None) -> Ref:
        from pyspark.mllib.evaluation import RankingMetrics

        sc = _spark().sparkContext
        rows = _spark_rows(case, k if top_k else None)

        def metrics(items, jvm=False):
            if graded:
                return _jvm_ranking_metrics([(p, judged, grades) for p, _, judged, grades in items])
            if jvm:
                return _jvm_ranking_metrics([(p, rel) for p, rel, _, _ in items])
            # pyspark infers the array type from the first rows: empty ground truths last
            pairs = sorted(((p, rel) for p, rel, _, _ in items), key=lambda pr: not pr[1])
            return RankingMetrics(sc.parallelize(pairs, 1))

        per_query = {q: float(metrics([r], jvm=True).ndcgAt(k)) for q, r in rows.items()}
        return Ref(per_query, float(metrics(list(rows.values())).ndcgAt(k)))
    return ref


def spark_ml_ranking_evaluator(case, k=None) -> Ref:
    """``pyspark.ml.evaluation.RankingEvaluator(metricName='ndcgAtK', k=k)`` on a
    ``prediction array<double>, label array<double>`` frame (docnos numbered in order of
    appearance, as the evaluator takes numeric items): per query one frame, the mean
    from one frame of every query."""
    from pyspark.ml.evaluation import RankingEvaluator

    spark = _spark()
    ids: dict = {}
    num = lambda ds: [float(ids.setdefault(d, len(ids))) for d in ds]  # noqa: E731
    rows = {q: (num(p), num(rel)) for q, (p, rel, _, _) in _spark_rows(case).items()}
    evaluator = RankingEvaluator(metricName="ndcgAtK", k=k)

    def value(items):
        frame = spark.createDataFrame(items, "prediction array<double>, label array<double>").coalesce(1)
        return float(evaluator.evaluate(frame))

    return Ref({q: value([r]) for q, r in rows.items()}, value(list(rows.values())))
# ----------------------------------------------------------------------------- library presets (issue 11)
# The references of tests/test_presets_libraries.py, run on the suite's cases as their
# users run them (recommender libraries are handed the run's ranking: score descending,
# ties in run order).

def _nested(rows, cast=float) -> dict:
    out: dict = {}
    for q, d, v in rows:
        out.setdefault(q, {})[d] = cast(v)
    return out


def _ranked(case) -> dict:
    out: dict = {}
    for i, (q, d, s) in enumerate(case.run_rows):
        out.setdefault(q, []).append((-s, i, d))
    return {q: [d for _, _, d in sorted(v)] for q, v in out.items()}


def catboost(metric: str):
    """``catboost.utils.eval_metric(y, s, '<metric>:top=k', group_id=0)`` per group
    (``top=-1``: the whole list)."""
    def ref(case, k=None) -> Ref:
        from catboost.utils import eval_metric

        top = -1 if k is None else k
        per = {q: float(eval_metric(y, s, metric.format(top=top), group_id=np.zeros(len(y), dtype=np.int64))[0])
               for q, y, s in zip(*case.arrays())}
        return Ref(per)
    return ref


def ignite(**kwargs):
    """``ignite.metrics.NDCG(top_k=[k], **kwargs)`` updated with one group (float32
    tensors); a group it refuses (``NotComputableError``: ``ignore_zero_hits`` left it
    out) is absent, as evalkit leaves it out."""
    def ref(case, k=None) -> Ref:
        import torch
        from ignite.exceptions import NotComputableError
        from ignite.metrics import NDCG

        per = {}
        for q, y, s in zip(*case.arrays()):
            metric = NDCG(top_k=[k], **kwargs)
            metric.update((torch.tensor(s[None, :], dtype=torch.float32),
                           torch.tensor(y[None, :], dtype=torch.float32)))
            try:
                per[q] = float(metric.compute()[0])
            except NotComputableError:
                continue
        return Ref(per)
    return ref


class _GivenRanking:
    """A stand-in for an implicit model: ``recommend`` returns the run's ranking."""

    def __init__(self, ranking):
        self.ranking = ranking

    def recommend(self, userid, user_items, N=10, **_):
        ids = np.full((len(userid), N), -1, dtype=np.int32)
        for row, u in enumerate(userid):
            got = self.ranking.get(int(u), [])[:N]
            ids[row, :len(got)] = got
        return ids, np.zeros(ids.shape, dtype=np.float32)


def implicit(case, k=None) -> Ref:
    """``implicit.evaluation.ranking_metrics_at_k(model, train=empty, test, K=k)['ndcg']``,
    the model returning the run's ranking; test = the qrels' documents with grade >= 1;
    per query: the test matrix restricted to that user; mean: all users at once."""
    import scipy.sparse as sp
    from implicit.evaluation import ranking_metrics_at_k

    users = sorted({q for q, _, _ in case.qrels_rows})
    items = sorted({d for _, d, _ in case.qrels_rows} | {d for _, d, _ in case.run_rows})
    uid = {u: i for i, u in enumerate(users)}
    iid = {d: i for i, d in enumerate(items)}
    rel = [(uid[q], iid[d]) for q, d, g in case.qrels_rows if g >= 1]
    test = sp.csr_matrix((np.ones(len(rel), dtype=np.float32), tuple(zip(*rel))), shape=(len(users), len(items)))
    train = sp.csr_matrix((len(users), len(items)), dtype=np.float32)
    model = _GivenRanking({uid[q]: [iid[d] for d in docs] for q, docs in _ranked(case).items() if q in uid})
    per = {}
    for q in sorted({users[u] for u, _ in rel}):
        one = test.multiply(sp.csr_matrix(([1.0], ([uid[q]], [0])), shape=(len(users), 1))).tocsr()
        per[q] = float(ranking_metrics_at_k(model, train, one, K=k, show_progress=False)["ndcg"])
    mean = float(ranking_metrics_at_k(model, train, test, K=k, show_progress=False)["ndcg"])
    return Ref(per, mean)


def lenskit(rating: bool):
    """LensKit 0.14 ``topn.RecListAnalysis`` with ``topn.ndcg(k=k)``; recommendations =
    the run's ranking with ranks; truth = qrels with a ``rating`` column (grade >= 0) or
    the items with grade >= 1 (binary). Its NaN (no relevant item) is absent."""
    def ref(case, k=None) -> Ref:
        import pandas as pd
        from lenskit import topn

        recs = pd.DataFrame([(q, d, r + 1) for q, docs in _ranked(case).items() for r, d in enumerate(docs)],
                            columns=["user", "item", "rank"])
        if rating:
            truth = pd.DataFrame([(q, d, float(g)) for q, d, g in case.qrels_rows if g >= 0],
                                 columns=["user", "item", "rating"])
        else:
            truth = pd.DataFrame([(q, d) for q, d, g in case.qrels_rows if g >= 1], columns=["user", "item"])
        rla = topn.RecListAnalysis()
        rla.add_metric(topn.ndcg, k=k)
        out = rla.compute(recs, truth)["ndcg"]
        return Ref({str(u): float(v) for u, v in out.items() if not math.isnan(v)})
    return ref


def _sbert(qd, k):
    from sentence_transformers.sentence_transformer.evaluation import InformationRetrievalEvaluator

    relevant = {q: {d for d, g in docs.items() if g >= 1} for q, docs in qd.items()}
    return InformationRetrievalEvaluator({q: q for q in qd}, {"unused": ""}, relevant, ndcg_at_k=[k],
                                         mrr_at_k=[k], accuracy_at_k=[k], precision_recall_at_k=[k],
                                         map_at_k=[k], show_progress_bar=False)


def sentence_transformers(case, k=None) -> Ref:
    """``InformationRetrievalEvaluator.compute_metrics`` (relevant = grade >= 1) on the
    run's hits, one evaluator per query and one over all for the mean."""
    qd, rd = _nested(case.qrels_rows, int), _nested(case.run_rows)
    ev = _sbert(qd, k)
    per = {}
    for q in ev.queries_ids:
        hits = [{"corpus_id": d, "score": s} for d, s in rd.get(q, {}).items()]
        per[q] = float(_sbert({q: qd[q]}, k).compute_metrics([hits])["ndcg@k"][k])
    hits = [[{"corpus_id": d, "score": s} for d, s in rd.get(q, {}).items()] for q in ev.queries_ids]
    return Ref(per, float(ev.compute_metrics(hits)["ndcg@k"][k]))


def beir(ignore_identical_ids: bool):
    """``EvaluateRetrieval.evaluate(qrels, run, [k], ignore_identical_ids=...)``: per query
    (one call per query) and over all (its mean); BEIR rounds both to 5 decimals."""
    def ref(case, k=None) -> Ref:
        import copy

        from beir.retrieval.evaluation import EvaluateRetrieval

        qd, rd = _nested(case.qrels_rows, int), _nested(case.run_rows)
        per = {q: float(EvaluateRetrieval.evaluate({q: qd[q]}, copy.deepcopy({q: rd[q]}), [k],
                                                   ignore_identical_ids=ignore_identical_ids)[0][f"NDCG@{k}"])
               for q in sorted(qd.keys() & rd.keys())}
        mean = EvaluateRetrieval.evaluate(qd, copy.deepcopy(rd), [k], ignore_identical_ids=ignore_identical_ids)
        return Ref(per, float(mean[0][f"NDCG@{k}"]))
    return ref


def recommenders(score_type: str):
    """microsoft/recommenders ``python_evaluation.ndcg_at_k(true, pred, k=k,
    score_type=...)`` per user of the qrels (a user absent from the run: the call on an
    empty prediction frame, 0.0; NaN absent) and over all (its mean)."""
    def ref(case, k=None) -> Ref:
        import pandas as pd
        from recommenders.evaluation.python_evaluation import ndcg_at_k

        true = pd.DataFrame(case.qrels_rows, columns=["userID", "itemID", "rating"])
        pred = pd.DataFrame(case.run_rows, columns=["userID", "itemID", "prediction"])
        try:
            mean = float(ndcg_at_k(true, pred, k=k, score_type=score_type))
        except ValueError as exc:  # score_type='exp' on negative integer ratings (numpy's power)
            return Ref({}, raised=f"ValueError: {exc}")
        per = {}
        for u in sorted(set(true.userID)):
            v = ndcg_at_k(true[true.userID == u], pred[pred.userID == u], k=k, score_type=score_type)
            if not math.isnan(v):
                per[u] = float(v)
        return Ref(per, mean)
    return ref


def on_judged_rows(inner):
    """``inner`` on the case with the run's unjudged rows removed (Pyserini's
    ``-remove-unjudged`` filters the run file before trec_eval)."""
    def ref(case, k=None) -> Ref:
        from cf_data import Case

        judged = {(q, d) for q, d, _ in case.qrels_rows}
        kept = Case(case.name + "/judged-rows", case.qrels_rows,
                    [r for r in case.run_rows if (r[0], r[1]) in judged])
        return inner(kept, k)
    return ref


def vectors_with_mean(table: dict):
    """Cited values per query and the mean the reference prints:
    ``{(case, k): ({qid: value}, mean)}``."""
    def ref(case, k=None) -> Ref:
        if (case.name, k) not in table:
            raise NotApplicable(f"no cited vector for {case.name} at k={k}")
        per, mean = table[(case.name, k)]
        return Ref(dict(per), mean)
    return ref


# ----------------------------------------------------------------------------- RecBole, pytorchltr, allRank, MTEB

#: RecBole's release the rows name (its worker environment: noxfile.py)
RECBOLE_VERSION = "1.2.1"


def _worker_python(variable: str, session: str) -> str:
    """The interpreter of a reference's worker environment, from ``$variable`` (set by the
    test session that made it); missing: a failure naming the session, never a skip."""
    exe = os.environ.get(variable)
    if not exe or not os.access(exe, os.X_OK):
        raise FileNotFoundError(f"${variable} is {'not set' if not exe else 'not an interpreter: ' + exe}: this "
                                f"reference runs in a worker environment that `nox -s {session}` makes "
                                "(noxfile.py)")
    return exe


def _recbole_ndcg_jobs(jobs: list) -> list:
    """``[ndcg@k]`` of RecBole's own evaluation path (``Collector`` + ``Evaluator``) per job
    ``(rows, positives, k)``, in :mod:`cf_recbole_worker`'s process (its own environment)."""
    work = Path(tempfile.mkdtemp(prefix="cf-recbole-"))
    try:
        (work / "in.json").write_text(json.dumps({"jobs": [{"rows": r, "positives": p, "k": k}
                                                           for r, p, k in jobs]}))
        worker = Path(__file__).with_name("cf_recbole_worker.py")
        done = subprocess.run([_worker_python("EVALKIT_RECBOLE_PYTHON", "recbole"), str(worker),
                               str(work / "in.json"), str(work / "out.json")], capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"RecBole worker failed:\n{done.stderr[-3000:]}")
        out = json.loads((work / "out.json").read_text())
        if out["versions"]["recbole"] != RECBOLE_VERSION:
            raise AssertionError(f"RecBole worker ran recbole {out['versions']}, the row names {RECBOLE_VERSION}")
        return out["values"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def recbole(case, k=None) -> Ref:
    """RecBole 1.2.1's full-sort evaluation (``Collector`` + ``Evaluator``, metric NDCG,
    ``topk=[k]``) on a score matrix built from the run, as a RecBole model's
    ``full_sort_predict`` gives one. RecBole ranks a row with ``torch.topk``
    (collector.py:161-163), whose order among equal scores is implementation-defined
    (a quickselect over the item-id columns, aten/src/ATen/native/TopKImpl.h), so, as
    for implicit and LensKit, RecBole is handed the run's ranking: score descending,
    tied documents in the run's order (``ties=stable``), as the scores n, n-1, ..., 1.
    Per user (a qrels query with a document of grade >= 1: RecBole's test users) a row
    of the run's documents, then ``k`` filler items scored 0 (no user's positives), then
    the positive items the run did not retrieve at ``-inf`` (in the ideal, never
    recommended), padded with ``-inf``; a test user without a run row gets fillers only.
    Per query: one row; mean: every user in one batch (RecBole's own mean). RecBole runs
    in its own environment with its own pins (:mod:`cf_recbole_worker`)."""
    pos = {}
    for q, d, g in case.qrels_rows:
        if g >= 1:
            pos.setdefault(q, set()).add(d)
    ranking = _ranked(case)
    layout = {}
    for q in sorted(pos):
        docs = ranking.get(q, [])
        missed = sorted(pos[q] - set(docs))
        items = docs + [None] * k + missed
        row = [float(len(docs) - i) for i in range(len(docs))] + [0.0] * k + [-math.inf] * len(missed)
        layout[q] = (row, [i for i, d in enumerate(items) if d in pos[q]])
    width = max(len(r) for r, _ in layout.values())
    pad = {q: (r + [-math.inf] * (width - len(r)), p) for q, (r, p) in layout.items()}
    jobs = [([r], [p], k) for r, p in pad.values()]
    jobs.append(([r for r, _ in pad.values()], [p for _, p in pad.values()], k))
    *values, mean = _recbole_ndcg_jobs(jobs)
    return Ref(dict(zip(pad, values)), mean)


def _ranked_rows(case) -> dict:
    """``{qid: [(docno, score)]}`` in the run's line order."""
    out: dict = {}
    for q, d, s in case.run_rows:
        out.setdefault(q, []).append((d, float(s)))
    return out


#: pytorchltr's sdist on PyPI (the only distribution of 0.2.1): version and sha256
PYTORCHLTR_SDIST = ("0.2.1", "58d60f1da45ab73d29f9594922b9ee601a7f65b42759585baba799f83b0fc945")


def pytorchltr_evaluation():
    """``pytorchltr.evaluation`` of pytorchltr 0.2.1, imported from its sdist, downloaded
    when the test environment was made (:func:`downloaded`; sha256 pinned), its
    ``pytorchltr/`` Python files unpacked under :data:`CACHE` and put first on
    ``sys.path``. ``pip install`` cannot build it here: the sdist ships only the C file
    Cython 0.29.21 generated for its svmrank dataset parser, which does not compile on
    Python 3.11 (``fatal error: longintrepr.h: No such file or directory``); the
    evaluation package is pure Python and never imports that parser."""
    import hashlib

    ver, sha = PYTORCHLTR_SDIST
    folder = CACHE / f"pytorchltr-{ver}"
    if not (folder / "pytorchltr" / "evaluation" / "dcg.py").exists():
        folder.mkdir(parents=True, exist_ok=True)
        sdist = downloaded("pytorchltr", ver)
        got = hashlib.sha256(sdist.read_bytes()).hexdigest()
        if got != sha:
            raise AssertionError(f"{sdist}: sha256 {got}, expected {sha}")
        with tarfile.open(sdist) as tar:
            for member in tar.getmembers():
                rel = member.name.split("/", 1)[-1]
                if member.isfile() and rel.startswith("pytorchltr/") and rel.endswith(".py"):
                    target = folder / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(tar.extractfile(member).read())
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    import pytorchltr.evaluation as evaluation

    if not Path(evaluation.__file__).resolve().is_relative_to(folder.resolve()):
        raise AssertionError(f"pytorchltr imported from {evaluation.__file__}, not from the 0.2.1 sdist")
    return evaluation


def pytorchltr(exp: bool, seeds: int = 1000):
    """``pytorchltr.evaluation.ndcg(scores, relevance, n, k=k, exp=exp)`` (pytorchltr
    0.2.1, :func:`pytorchltr_evaluation`) on the run's groups as one padded batch
    (float32 scores, int64 relevance, ``n`` the list lengths), as its users call it.
    pytorchltr breaks ties at random (``rank_by_score`` -> ``tiebreak_argsort``:
    ``torch.randperm``), so the reference is the mean over ``seeds`` calls
    (``torch.manual_seed(0..seeds-1)``) with, per query, the standard error of that mean
    (the suite allows 6 of them beyond the tolerance)."""
    def ref(case, k=None) -> Ref:
        import torch

        ndcg = pytorchltr_evaluation().ndcg

        qids, ys, ss = case.arrays()
        width = max(len(y) for y in ys)
        rel = torch.zeros((len(ys), width), dtype=torch.long)
        sc = torch.zeros((len(ys), width), dtype=torch.float32)
        for i, (y, s) in enumerate(zip(ys, ss)):
            rel[i, :len(y)] = torch.tensor(y, dtype=torch.long)
            sc[i, :len(s)] = torch.tensor(s, dtype=torch.float32)
        n = torch.tensor([len(y) for y in ys], dtype=torch.long)
        state = torch.random.get_rng_state()
        try:
            draws = []
            for seed in range(seeds):
                torch.manual_seed(seed)
                draws.append(ndcg(sc, rel, n, k=k, exp=exp).to(torch.float64).numpy())
        finally:
            torch.random.set_rng_state(state)
        draws = np.array(draws)
        out = Ref({q: float(v) for q, v in zip(qids, draws.mean(axis=0))})
        out.spread = {q: float(v) for q, v in zip(qids, draws.std(axis=0) / math.sqrt(seeds))}
        return out
    return ref


# ----------------------------------------------------------------------------- TorchRec

#: the torchmetrics wheel TorchRec 1.8.0 pins (``torchmetrics==1.0.3``): version and sha256
TORCHREC_TORCHMETRICS = ("1.0.3", "612a74ab8ebfcd4ebb38e5c370ce29a0e73af074948048f6f2233e25cf60da75")
_TORCHREC: dict = {}
#: sessions per batch when the mean is computed (one ``update`` per batch, as over an epoch)
SESSIONS_PER_BATCH = 8


def torchmetrics_for_torchrec() -> None:
    """Checks that the torchmetrics installed is 1.0.3, the version TorchRec 1.8.0 pins: the
    ``torchrec`` test environment installs TorchRec with its pins (``nox -s torchrec``).
    With torchmetrics 1.9.0 (the ``torchmetrics.*`` rows' reference, in the ``torch``
    environment) ``NDCGMetric.compute()`` fails (``cf_torchrec_worker``)."""
    ver = metadata.version("torchmetrics")
    if ver != TORCHREC_TORCHMETRICS[0]:
        raise AssertionError(f"torchmetrics {ver} installed; TorchRec 1.8.0 pins {TORCHREC_TORCHMETRICS[0]} "
                             "(run the TorchRec rows in their own environment: nox -s torchrec)")


def _torchrec_run(case, draws: int, seed: int) -> dict:
    """Both gains of one case through ``cf_torchrec_worker`` (one process: TorchRec's
    import takes seconds); ``{exponential_gain: (per_query, spread, mean)}``."""
    qids, ys, ss = case.arrays()
    rng = np.random.default_rng(seed)
    batches = []  # (labels, predictions, session ids: draws x examples; batch bounds)
    for y, s in zip(ys, ss):  # per query: a batch holding that session alone, its items in random orders
        order = rng.permuted(np.tile(np.arange(len(y)), (draws, 1)), axis=1)
        batches.append((y[order], s[order], np.zeros(order.shape, dtype=np.int64), [0, len(y)]))
    # the mean: every session, SESSIONS_PER_BATCH to a batch, each session's items in a random
    # order within its positions
    starts = np.cumsum([0] + [len(y) for y in ys])
    order = np.concatenate([start + rng.permuted(np.tile(np.arange(len(y)), (draws, 1)), axis=1)
                            for start, y in zip(starts, ys)], axis=1)
    labels, scores = np.concatenate(ys), np.concatenate(ss)
    sessions = np.repeat(np.arange(len(ys)), [len(y) for y in ys])
    bounds = list(starts[::SESSIONS_PER_BATCH]) + ([starts[-1]] if len(ys) % SESSIONS_PER_BATCH else [])
    batches.append((labels[order], scores[order], np.tile(sessions, (draws, 1)), bounds))
    jobs = {}
    for e in (0, 1):
        for b, (y, s, sid, cuts) in enumerate(batches):
            j = e * len(batches) + b
            jobs.update({f"p{j}": s.astype(np.float32), f"l{j}": y.astype(np.float32), f"s{j}": sid,
                         f"e{j}": np.array(e), f"b{j}": np.array(cuts, dtype=np.int64)})
    work = Path(tempfile.mkdtemp(prefix="cf-torchrec-"))
    try:
        np.savez(work / "in.npz", **jobs)
        torchmetrics_for_torchrec()
        worker = Path(__file__).with_name("cf_torchrec_worker.py")
        done = subprocess.run([sys.executable, str(worker), str(work / "in.npz"), str(work / "out.npz")],
                              capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"TorchRec worker failed:\n{done.stderr[-3000:]}")
        out = np.load(work / "out.npz")
        versions = [str(v) for v in out["versions"]]
        if versions[:2] != [metadata.version("torchrec"), TORCHREC_TORCHMETRICS[0]]:
            raise AssertionError(f"TorchRec worker ran torchrec/torchmetrics/fbgemm_gpu {versions}")
        result = {}
        for e in (0, 1):
            v = [out[f"v{e * len(batches) + b}"] for b in range(len(batches))]
            per = {q: float(x.mean()) for q, x in zip(qids, v)}
            spread = {q: float(x.std() / math.sqrt(draws)) for q, x in zip(qids, v)}
            result[bool(e)] = (per, spread, float(v[-1].mean()))
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def torchrec(exponential_gain: bool, draws: int = 1000, seed: int = 0):
    """TorchRec's ``NDCGMetric`` (``torchrec.metrics.ndcg``, TorchRec as installed: 1.8.0,
    FBGEMM's CPU build 1.8.0 for torch 2.13) called as ``RecMetricModule`` calls a metric:
    ``update(predictions=, labels=, weights=, required_inputs={"session_id": ...})`` on a
    batch, then ``compute()`` (``lifetime_ndcg``: the mean over the batch's sessions of ``1 -
    NDCG``), in :mod:`cf_torchrec_worker` (its own process, with the torchmetrics 1.0.3 that
    TorchRec pins). Predictions and labels as ``float32`` tensors (a model's outputs; the
    metric casts them to ``float64``, ndcg.py:387-389, so scores equal in ``float32`` tie),
    weights 1, the whole session (``k = -1``).

    TorchRec ranks with ``predictions.sort(descending=True)`` (ndcg.py:155), which on CPU
    orders equal values neither stably nor by any rule a user sets, so the reference is
    the mean over ``draws`` random orders of each session's items (each order one task row
    of a ``FUSED_TASKS_COMPUTATION`` batch): per query, a batch holding that session alone;
    the mean (``Ref.mean``), every session, :data:`SESSIONS_PER_BATCH` to a batch, one
    ``update`` per batch, then ``compute()``, each session's items in a random order within
    its positions (TorchRec asserts that every task row has the same session ids).
    The spread is each query's standard error over the draws (the suite allows 6 of them)."""
    def ref(case, k=None) -> Ref:
        if k is not None:
            raise NotApplicable("TorchRec's NDCGMetric scores the whole session (k = -1)")
        key = (case.name, draws, seed)
        if key not in _TORCHREC:
            _TORCHREC[key] = _torchrec_run(case, draws, seed)
        per, spread, mean = _TORCHREC[key][exponential_gain]
        out = Ref(dict(per), mean)
        out.spread = dict(spread)
        return out
    return ref


#: allRank's release the rows name (its worker environment: noxfile.py)
ALLRANK_VERSION = "1.4.3"
#: allRank's ``PADDED_Y_VALUE`` (allrank/data/dataset_loading.py), the label of padded cells
ALLRANK_PADDED_Y_VALUE = -1.0


def allrank(seeds: int = 1000):
    """``allrank.models.metrics.ndcg(y_pred, y_true, ats=[k])`` of allRank 1.4.3 (``ats=None``
    for the whole slate; the default gain 2^y - 1 and ``filler_value=1.0``) on the run's
    groups as one padded batch, as allRank's own validation feeds it: float32 ``y_pred`` and
    ``y_true``, short slates padded with the label ``PADDED_Y_VALUE`` (-1). allRank runs in
    its own environment with its own pins (torch 1.8.0 on Python 3.8:
    :mod:`cf_allrank_worker`). allRank orders a slate with ``y_pred.sort(descending=True)``
    (metrics.py:37), which is not stable: on the CPU it puts tied items in an order fixed by
    their order in the slate (the data file's), no seed involved. So the reference is the
    mean over ``seeds`` item orders, each slate permuted at random
    (``numpy.random.default_rng(seed)`` for seed 0..seeds-1: whatever a sort does with equal
    keys, every order of the tied items is then equally likely), with, per query, the
    standard error of that mean (the suite allows 6 of them beyond the tolerance)."""
    def ref(case, k=None) -> Ref:
        qids, ys, ss = case.arrays()
        width = max(len(y) for y in ys)
        pad = np.arange(width)[None, :] >= np.array([len(y) for y in ys])[:, None]
        labels = np.full((len(ys), width), ALLRANK_PADDED_Y_VALUE)
        scores = np.zeros((len(ys), width))
        for i, (y, s) in enumerate(zip(ys, ss)):
            if (np.asarray(y) == ALLRANK_PADDED_Y_VALUE).any():
                raise AssertionError(f"{case.name}: label {ALLRANK_PADDED_Y_VALUE} is allRank's padding")
            labels[i, :len(y)], scores[i, :len(s)] = y, s
        work = Path(tempfile.mkdtemp(prefix="cf-allrank-"))
        try:
            np.savez(work / "in.npz", labels=labels, scores=scores, pad=pad, k=np.array(-1 if k is None else k),
                     seeds=np.array(seeds))
            worker = Path(__file__).with_name("cf_allrank_worker.py")
            done = subprocess.run([_worker_python("EVALKIT_ALLRANK_PYTHON", "allrank"), str(worker),
                                   str(work / "in.npz"), str(work / "out.npz")], capture_output=True, text=True)
            if done.returncode:
                raise RuntimeError(f"allRank worker failed:\n{done.stderr[-3000:]}")
            out = np.load(work / "out.npz")
            versions = [str(v) for v in out["versions"]]
            if versions[0] != ALLRANK_VERSION or float(out["padded_y_value"]) != ALLRANK_PADDED_Y_VALUE:
                raise AssertionError(f"allRank worker ran allrank/torch/numpy {versions}, PADDED_Y_VALUE "
                                     f"{float(out['padded_y_value'])}")
            draws = out["draws"]
        finally:
            shutil.rmtree(work, ignore_errors=True)
        res = Ref({q: float(v) for q, v in zip(qids, draws.mean(axis=0))})
        res.spread = {q: float(v) for q, v in zip(qids, draws.std(axis=0) / math.sqrt(seeds))}
        return res
    return ref


def mteb(*, skip_first: bool = False, ignore_identical_ids: bool = False):
    """MTEB 2.26.24's retrieval scoring, as a retrieval task runs it on a model's
    results (``AbsTaskRetrieval._evaluate_subset``, mteb/abstasks/retrieval.py:332-435):
    ``RetrievalEvaluator.evaluate(qrels, results, [k], ignore_identical_ids,
    skip_first_result)`` (mteb/_evaluators/retrieval_evaluator.py:126-149: with
    ``ignore_identical_ids`` a document whose id is the query's is popped from the
    results), which calls ``calculate_retrieval_scores`` (retrieval_metrics.py:591-644:
    with ``skip_first_result`` each query's results sorted by score with Python's stable
    sort, the first dropped; ``pytrec_eval.RelevanceEvaluator(qrels, {'ndcg_cut.k',
    ...}).evaluate(results)``; ``parse_metrics_from_scores``, :487-537: the mean over the
    evaluated queries, ``round(..., 5)``). Per query: its ``all_scores[qid]['ndcg_cut_k']``;
    mean: its ``ndcg['NDCG@k']``. A task searches only the queries of its qrels
    (``_filter_queries_without_positives``, :63-76), so ``results`` holds the run's queries
    that the qrels judge (MTEB's ``mrr`` raises ``KeyError`` on any other). ``evaluate``
    reads no instance state (MTEB marks it ``noqa: PLR6301``), so it is called on an
    instance made without ``__init__``, which wants a corpus, queries and a task's
    metadata (and reseeds the global random generators)."""
    def ref(case, k=None) -> Ref:
        from mteb._evaluators import RetrievalEvaluator

        qrels = _nested(case.qrels_rows, int)
        results = {q: dict(v) for q, v in _ranked_rows(case).items() if q in qrels}  # the run's order
        evaluator = RetrievalEvaluator.__new__(RetrievalEvaluator)
        out = evaluator.evaluate(qrels, results, [k], ignore_identical_ids=ignore_identical_ids,
                                 skip_first_result=skip_first)
        per = {q: float(v[f"ndcg_cut_{k}"]) for q, v in out.all_scores.items()}
        return Ref(per, float(out.ndcg[f"NDCG@{k}"]))
    return ref
