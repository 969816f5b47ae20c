"""Datasets of the conformance suite: real runs from ``../shared/data`` and generated
edge cases. Each is a :class:`Case`: qrels and run as evalkit objects *and* as the
plain rows every reference is fed, so both sides see the same input.

Generated data (:func:`generated`, seed fixed) covers: exact ties, ties that exist only
in float32, a tied block of 20 documents (longer than 16), grades -2..4 (or 0..4 for
references that refuse negative labels), a query with no relevant document, a query
with only negative judgments, a qrels query missing from the run, a run query with no
judgment, unjudged documents and 1-document lists.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from evalkit import Qrels, Run, SubtopicQrels

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@dataclass
class Case:
    """One input of the suite.

    :param qrels_rows: ``[(qid, docno, grade:int)]``.
    :param run_rows: ``[(qid, docno, score:float)]`` in file order.
    :param subtopic_rows: ``[(qid, subtopic, docno, grade)]`` for diversity cases.
    :param ranks: the run's rank column (``int`` per row of ``run_rows``); ``None``:
        1, 2, ... per query in line order (a run written in rank order).
    """

    name: str
    qrels_rows: list
    run_rows: list
    subtopic_rows: list | None = None
    note: str = ""
    ranks: list | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def qrels(self) -> Qrels:
        if "qrels" not in self._cache:
            self._cache["qrels"] = Qrels.from_rows(self.qrels_rows)
        return self._cache["qrels"]

    @property
    def run(self) -> Run:
        if "run" not in self._cache:
            self._cache["run"] = Run.from_rows(self.run_rows, name=self.name)
        return self._cache["run"]

    @property
    def trec_run(self) -> Run:
        """The run as a user reads its TREC file: ``read_run(text, keep_rank=True)``
        (the text :meth:`write` writes, rank column included)."""
        if "trec_run" not in self._cache:
            from evalkit import read_run

            self._cache["trec_run"] = read_run(self.run_text(), name=self.name, keep_rank=True)
        return self._cache["trec_run"]

    def run_text(self) -> str:
        """The run in TREC format, one line per row of ``run_rows`` in order, with
        ``ranks`` (or 1, 2, ... per query in line order) in the rank column."""
        ranks = self.ranks
        if ranks is None:
            count: dict = {}
            ranks = []
            for q, _, _ in self.run_rows:
                count[q] = count.get(q, 0) + 1
                ranks.append(count[q])
        return "".join(f"{q} Q0 {d} {r} {s!r} conf\n" for (q, d, s), r in zip(self.run_rows, ranks))

    @property
    def subtopics(self) -> SubtopicQrels:
        if "sub" not in self._cache:
            q, s, d, g = zip(*self.subtopic_rows)
            self._cache["sub"] = SubtopicQrels.from_columns(q, s, d, g)
        return self._cache["sub"]

    def has_ties(self, float32: bool = False) -> bool:
        """Whether two documents of one query have equal scores (in float32 if asked)."""
        key = ("ties", float32)
        if key not in self._cache:
            q = np.array([r[0] for r in self.run_rows], dtype=object)
            s = np.array([r[2] for r in self.run_rows], dtype=np.float64)
            if float32:
                s = s.astype(np.float32).astype(np.float64)
            _, qi = np.unique(q, return_inverse=True)
            pairs = np.stack([qi, s], axis=1)
            self._cache[key] = len(np.unique(pairs, axis=0)) < len(pairs)
        return self._cache[key]

    def arrays(self):
        """The run as learning-to-rank groups: ``(qids, labels, scores)`` with one
        ``float64`` array per query (run order within the query; unjudged -> label 0)."""
        if "arrays" not in self._cache:
            grades = {(q, d): g for q, d, g in self.qrels_rows}
            groups: dict = {}
            for q, d, s in self.run_rows:
                groups.setdefault(q, ([], []))
                groups[q][0].append(float(grades.get((q, d), 0)))
                groups[q][1].append(float(s))
            qids = list(groups)
            self._cache["arrays"] = (qids, [np.array(groups[q][0]) for q in qids],
                                     [np.array(groups[q][1]) for q in qids])
        return self._cache["arrays"]

    def write(self, folder: Path) -> tuple[Path, Path]:
        """TREC files (qrels, run) in ``folder`` (the run as :meth:`run_text`)."""
        folder.mkdir(parents=True, exist_ok=True)
        stem = self.name.replace("/", "_")
        qp, rp = folder / f"{stem}.qrels", folder / f"{stem}.run"
        if self.subtopic_rows is not None:
            qp.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in self.subtopic_rows))
        else:
            qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in self.qrels_rows))
        rp.write_text(self.run_text())
        return qp, rp


# --------------------------------------------------------------------------- generated

def _docno(rng, i: int) -> str:
    # mixed case, lengths and prefixes, so docno order (strcmp) is exercised
    return rng.choice(["d", "D", "doc-", "x"]) + str(i)


@lru_cache(maxsize=None)
def generated(min_grade: int = -2) -> Case:
    """Edge-case qrels and run (seed 16); grades ``min_grade..4``."""
    rng = np.random.default_rng(16)
    grades_pool = np.arange(min_grade, 5)
    qrels, run = [], []

    def judged(qid, docs, pool=grades_pool):
        for d in docs:
            qrels.append((qid, d, int(rng.choice(pool))))

    for q in range(24):  # random lists: exact ties on half of them
        qid = str(100 + q)
        n = int(rng.integers(2, 40))
        docs = list(dict.fromkeys(_docno(rng, i) for i in rng.permutation(400)[: n + 8]))[: n + 8]
        if q % 2:
            scores = rng.integers(0, 5, size=n).astype(float)
        else:
            scores = np.round(rng.normal(size=n), 6)
        run += [(qid, d, float(s)) for d, s in zip(docs[:n], scores)]
        judged(qid, docs[n // 4: n + 8])  # the first quarter stays unjudged
    # float32-only ties: distinct in float64, equal as C floats
    qid = "130"
    docs = [f"f{i}" for i in range(12)]
    run += [(qid, d, 0.5 + i * 1e-12) for i, d in enumerate(docs)]
    judged(qid, docs)
    # a tied block of 20 documents (longer than 16) between untied ones
    qid = "131"
    docs = [f"t{i:02d}" for i in range(26)]
    run += [(qid, d, 3.0 if i < 3 else (2.0 if i < 23 else 1.0 - i / 100)) for i, d in enumerate(docs)]
    judged(qid, docs)
    # 1-document lists: judged relevant, and unjudged
    run += [("132", "only", 1.0), ("133", "only", 1.0)]
    qrels += [("132", "only", 3), ("132", "other", 2), ("133", "other", 1)]
    # no relevant document (all judged 0), and (with negatives) only negative judgments
    run += [("134", f"z{i}", float(i % 3)) for i in range(6)]
    qrels += [("134", f"z{i}", 0) for i in range(4)]
    if min_grade < 0:
        run += [("135", f"n{i}", float(i)) for i in range(5)]
        qrels += [("135", f"n{i}", -1 - (i % 2)) for i in range(5)]
    # a judged query missing from the run, and a run query without judgments
    qrels += [("136", "m1", 2), ("136", "m2", 0)]
    run += [("137", f"u{i}", float(i // 2)) for i in range(7)]
    # a query with every document relevant and tied
    run += [("138", f"r{i}", 1.0) for i in range(18)]
    qrels += [("138", f"r{i}", 1 + i % 4) for i in range(18)]
    name = "generated" if min_grade < 0 else "generated-nonneg"
    return Case(name, qrels, run, note=f"generated, seed 16, grades {min_grade}..4")


@lru_cache(maxsize=None)
def generated_diversity() -> Case:
    """Subtopic qrels (grades 0..4, 1-4 subtopics a topic) and a tied run (seed 17);
    numeric topics (ndeval parses topics as integers)."""
    rng = np.random.default_rng(17)
    sub, run = [], []
    for t in range(30):
        qid = str(300 + t)
        n_sub = int(rng.integers(1, 5))
        n = int(rng.integers(1, 45))
        docs = [f"w{i:03d}" for i in rng.permutation(300)[: n + 6]]
        for d in docs[n // 5:]:
            for s in range(n_sub):
                if rng.random() < 0.5:
                    sub.append((qid, str(s), d, int(rng.integers(0, 5))))
        scores = rng.integers(0, 4, size=n).astype(float) if t % 3 else np.round(rng.random(n), 4)
        run += [(qid, d, float(s)) for d, s in zip(docs[:n], scores)]
    run += [("340", f"v{i:02d}", 1.0) for i in range(22)]  # 22 tied documents
    sub += [("340", str(i % 3), f"v{i:02d}", 1 + i % 2) for i in range(0, 22, 2)]
    sub += [("341", "0", "gone", 1)]  # a topic missing from the run
    run += [("342", "nothing", 1.0)]  # a run topic without judgments
    qrels = sorted({(q, d, 0) for q, _, d, _ in sub})
    return Case("generated-diversity", qrels, run, subtopic_rows=sub,
                note="generated, seed 17, subtopic grades 0..4")


# --------------------------------------------------------------------------- real data

def _read_qrels(path: Path) -> list:
    rows = []
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) >= 4:
            rows.append((f[0], f[2], int(f[3])))
    return rows


def _read_run(path: Path) -> list:
    opener = gzip.open if path.suffix == ".gz" else open
    rows = []
    with opener(path, "rt") as fh:
        for line in fh:
            f = line.split()
            if len(f) >= 6:
                rows.append((f[0], f[2], float(f[4])))
    return rows


def shared(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"conformance data {path} is missing (../shared/data beside the checkout)")
    return path


@lru_cache(maxsize=None)
def robust03(run_name: str) -> Case:
    return Case(f"robust03/{run_name}", _read_qrels(shared("trectools_robust03", "robust03_qrels.txt")),
                _read_run(shared("trectools_robust03", "runs", f"input.{run_name}.gz")),
                note="TREC 2003 Robust qrels (0-2) and a participant run")


@lru_cache(maxsize=None)
def trec_eval_test() -> Case:
    d = shared("trec_eval_test")
    return Case("trec_eval_test/results.test", _read_qrels(d / "qrels.test"), _read_run(d / "results.test"),
                note="trec_eval's test suite (qrels.test, results.test)")


@lru_cache(maxsize=None)
def trec_eval_rel_level() -> Case:
    d = shared("trec_eval_test")
    return Case("trec_eval_test/qrels.rel_level", _read_qrels(d / "qrels.rel_level"),
                _read_run(d / "results.test"), note="trec_eval's graded qrels.rel_level (-1..4)")


@lru_cache(maxsize=None)
def cast2021() -> Case:
    d = shared("trec_cast_2021")
    run = sorted((d / "document_runs").glob("*bm25*"))[0]
    return Case("cast2021/bm25", _read_qrels(d / "trec-cast-qrels-docs.2021.qrel"), _read_run(run),
                note="TREC CAsT 2021 (string topic ids, grades 0-4)")


@lru_cache(maxsize=None)
def web2013_synthetic() -> Case:
    """TREC 2013 Web adhoc qrels (-2..4) with a run drawn from them (seed 11): integer
    scores 0..14 (many ties), 3 unjudged documents a topic, topic 210 absent."""
    qrels = _read_qrels(shared("anserini_tools_qrels", "qrels.web.201-250.txt"))
    rng = np.random.default_rng(11)
    by_topic: dict = {}
    for q, d, _ in qrels:
        by_topic.setdefault(q, []).append(d)
    run = []
    for q, docs in by_topic.items():
        if q == "210":
            continue
        picked = list(rng.choice(docs, size=min(40, len(docs)), replace=False))
        picked += [f"unjudged-{q}-{i}" for i in range(3)]
        run += [(q, str(d), float(rng.integers(0, 15))) for d in picked]
    return Case("web2013-adhoc/synthetic-run", qrels, run,
                note="TREC 2013 Web adhoc qrels (-2..4), run sampled from them")


@lru_cache(maxsize=None)
def web2013_diversity() -> Case:
    """TREC 2013 Web diversity qrels with a run drawn from them (seed 12): scores
    0..5 (ties), one unjudged document a topic, topic 203 absent."""
    sub = []
    for line in shared("anserini_tools_qrels", "qrels.web.201-250.ndeval.txt").read_text().splitlines():
        f = line.split()
        if len(f) == 4:
            sub.append((f[0], f[1], f[2], int(f[3])))
    rng = np.random.default_rng(12)
    by_topic: dict = {}
    for q, _, d, _ in sub:
        by_topic.setdefault(q, {})[d] = None
    run = []
    for q, docs in by_topic.items():
        if q == "203":
            continue
        picked = list(rng.choice(list(docs), size=min(40, len(docs)), replace=False)) + [f"unjudged-{q}"]
        run += [(q, str(d), float(rng.integers(0, 6))) for d in picked]
    qrels = sorted({(q, d, 0) for q, _, d, _ in sub})
    return Case("web2013-diversity/synthetic-run", qrels, run, subtopic_rows=sub,
                note="TREC 2013 Web diversity qrels (0..4), run sampled from them")


def _reranked(case: Case, name: str, note: str, seed: int, inverted: bool) -> Case:
    """``case`` with a rank column that disagrees with both its scores and its line
    order (ndeval's default reads the rank column): per query, ranks are a random
    permutation (``inverted=False``), or invert the score order (``inverted=True``:
    rank 0 for the lowest score, tied scores ranked by docno ascending, ranks 0, 3,
    6, ...: not contiguous, starting at 0 as ndeval's naturalNumber allows); then the
    lines are shuffled within each query and the queries written in reverse order
    (each query's lines stay contiguous: pyndeval and ir_measures group a run by
    consecutive lines, ``_coerce_run_iter`` / ``RunConverter.as_sorted_namedtuple_iter``,
    so a query split across the file would be evaluated in pieces there)."""
    rng = np.random.default_rng(seed)
    by_q: dict = {}
    for i, (q, _, _) in enumerate(case.run_rows):
        by_q.setdefault(q, []).append(i)
    ranks = [0] * len(case.run_rows)
    for rows in by_q.values():
        if inverted:
            order = sorted(rows, key=lambda i: (case.run_rows[i][2], case.run_rows[i][1]))
            for r, i in enumerate(order):
                ranks[i] = 3 * r
        else:
            for r, i in zip(rng.permutation(len(rows)) + 1, rows):
                ranks[i] = int(r)
    lines = [i for rows in reversed(list(by_q.values())) for i in rng.permutation(rows)]
    return Case(name, case.qrels_rows, [case.run_rows[i] for i in lines], subtopic_rows=case.subtopic_rows,
                note=note, ranks=[ranks[i] for i in lines])


@lru_cache(maxsize=None)
def web2013_diversity_reranked() -> Case:
    """:func:`web2013_diversity` with random ranks (seed 13; tied scores get distinct
    ranks) and its lines shuffled within each topic."""
    return _reranked(web2013_diversity(), "web2013-diversity/random-ranks",
                     "TREC 2013 Web diversity qrels, sampled run with random ranks, lines shuffled within topics", 13, False)


@lru_cache(maxsize=None)
def generated_diversity_inverted() -> Case:
    """:func:`generated_diversity` with ranks that invert its scores (ranks 0, 3, 6...)
    and its lines shuffled (seed 14)."""
    return _reranked(generated_diversity(), "generated-diversity/inverted-ranks",
                     "generated diversity, ranks inverting the scores, lines shuffled", 14, True)


@lru_cache(maxsize=None)
def lambdarank(seed: int = 7) -> Case:
    """LightGBM's lambdarank example labels (0-4, 50 groups) with scores drawn here:
    integers 0..2 (many ties) on odd groups, normal floats on even ones."""
    from sklearn.datasets import load_svmlight_file

    base = shared("lightgbm_lambdarank")
    _, y = load_svmlight_file(str(base / "rank.test"))
    groups = np.loadtxt(base / "rank.test.query", dtype=np.int64)
    rng = np.random.default_rng(seed)
    qrels, run, start = [], [], 0
    for g, size in enumerate(groups):
        qid = str(g + 1)
        for i in range(size):
            d = f"doc{i}"
            qrels.append((qid, d, int(y[start + i])))
            s = float(rng.integers(0, 3)) if g % 2 else float(rng.normal())
            run.append((qid, d, s))
        start += size
    return Case("lightgbm/rank.test", qrels, run, note="LightGBM lambdarank example labels, scores drawn")


@lru_cache(maxsize=None)
def ir_measures_fixture_c() -> Case:
    """ir_measures' diversity fixture (fixtureC_diversity.qrels with fixtureA.run): the
    run's rank column (its line order) disagrees with its scores."""
    d = shared("ir_measures_fixtures")
    sub = [(f[0], f[1], f[2], int(f[3])) for f in
           (line.split() for line in (d / "fixtureC_diversity.qrels").read_text().splitlines()) if len(f) == 4]
    run = _read_run(d / "fixtureA.run")
    return Case("ir_measures/fixtureC+A", sorted({(q, doc, 0) for q, _, doc, _ in sub}), run,
                subtopic_rows=sub, note="ir_measures tests' diversity fixture")


def jarvelin2002_example(tied: bool = False) -> Case:
    """Järvelin & Kekäläinen (ACM TOIS 2002), the running example: one topic "G" whose
    run has the grades G' = <3, 2, 3, 0, 0, 1, 2, 2, 3, 0> at ranks 1-10 (rank 10 unjudged),
    and whose judged documents give the ideal vector <3, 3, 3, 2, 2, 2, 1, 1, 1, 1>
    (three grade-1 documents are not retrieved) plus two judged non-relevant ones.

    ``tied``: every score equal, docnos ``r99, r98, ..., r90`` for ranks 1-10 (written
    in shuffled line order): trec_eval breaks ties by docno descending (form_res_rels.c
    comp_sim_docno), so its ranking, and its value, are the example's."""
    grades = (3, 2, 3, 0, 0, 1, 2, 2, 3, None)
    if tied:
        names = [f"r{99 - i}" for i in range(10)]
        run = [("G", names[i], 1.0) for i in (4, 9, 0, 7, 2, 5, 8, 1, 3, 6)]
    else:
        names = [f"r{i + 1:02d}" for i in range(10)]
        run = [("G", names[i], float(10 - i)) for i in range(10)]
    qrels = [("G", names[i], g) for i, g in enumerate(grades) if g is not None]
    qrels += [("G", f"u{j}", 1) for j in range(3)]
    return Case("jarvelin2002/example" + ("-tied" if tied else ""), qrels, run,
                note="Järvelin & Kekäläinen 2002, Section 2 example" + (" (all scores tied)" if tied else ""))


# microsoft/recommenders tests/unit/recommenders/evaluation/conftest.py (rating_true,
# rating_pred), the vectors of test_spark_evaluation.py::test_spark_ndcg_at_k
RECOMMENDERS_TRUE = {
    "userID": [1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1],
    "itemID": [3, 1, 4, 5, 6, 7, 2, 5, 6, 8, 9, 10, 11, 12, 13, 14, 1, 2],
    "rating": [3, 5, 5, 3, 3, 1, 5, 5, 5, 4, 4, 3, 3, 3, 2, 1, 5, 4],
}
RECOMMENDERS_PRED = {
    "userID": [1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1],
    "itemID": [12, 10, 3, 5, 11, 13, 4, 10, 7, 13, 1, 3, 5, 2, 11, 14, 3, 10],
    "prediction": [12, 14, 13, 12, 11, 10, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 14, 13],
}


def recommenders_vectors() -> Case:
    """recommenders' rating_true (ratings as grades) and rating_pred (predictions as scores)."""
    t, p = RECOMMENDERS_TRUE, RECOMMENDERS_PRED
    return Case("recommenders/test_vectors",
                [(str(u), str(i), int(r)) for u, i, r in zip(t["userID"], t["itemID"], t["rating"])],
                [(str(u), str(i), float(s)) for u, i, s in zip(p["userID"], p["itemID"], p["prediction"])],
                note="microsoft/recommenders tests/unit/recommenders/evaluation/conftest.py")
