"""Deterministic generator of the benchmark workloads (issue 4).

W1/W2 files (per size ``n`` run lines, ``n / 1000`` queries):

* ``run_<n>.txt``: ``qid Q0 docno rank score runid``, 1,000 documents per query,
  docnos ``D<7 digits>`` drawn without replacement (per query) from a corpus of
  3,200,003 documents (about MS MARCO-document size), scores decreasing with rank
  and rounded to 4 decimals (a few ties, which trec_eval breaks by docno).
* ``qrels_<n>.txt``: ``qid 0 docno grade``, 100 judgments per query, grades 0-3;
  80 of them are retrieved documents (biased to the top ranks, where grades are
  higher) and 20 are unretrieved documents.

W3 arrays (``arrays.npz``): ``y_true`` (10,000 x 100) grades 0-3 and ``y_score``
uniform in [0, 1) rounded to one decimal (many ties).

W1 shapes (issue 14; ``--shape``, files ``run_<n>[_<shape>].txt``): the default shape
``w1`` is the one above; the others change one or more of its traits:

* ``short``: short docnos (``d<number>``, as in ``d4056``), six-decimal scores (almost
  no ties), 1,000 documents per query, in score order;
* ``long``: long docnos (``clueweb12-0000tw-00-00000-00``, 28 bytes) and many
  ties (scores with 1 decimal: about 90 % of the rows share a score with another row);
* ``shuffled``: the ``w1`` docnos and scores, but each query's lines in random order
  (a run not sorted by score);
* ``manyties``: short docnos, scores with 1 decimal, lines in random order.

The qrels of every shape judge the same positions as ``w1``'s (80 retrieved
documents biased to the top ranks, 20 unretrieved).

Everything is drawn from ``numpy.random.default_rng(seed)``; the same size, shape and
seed give byte-identical files.

Usage: ``python benchmarks/generate.py [--sizes 1000000 3000000 10000000] [--shapes w1 short]
[--out benchmarks/data]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

CORPUS = 3_200_003  # prime, so every step in [1, CORPUS) visits distinct documents
DOCS_PER_QUERY = 1000
JUDGED_RETRIEVED = 80
JUDGED_UNRETRIEVED = 20
SEED = 20240601
CHUNK_QUERIES = 500

#: shape -> (docno style, decimals of the scores, lines in random order within a query)
SHAPES = {
    "w1": ("D7", 4, False),
    "short": ("short", 6, False),
    "long": ("long", 1, False),
    "shuffled": ("D7", 4, True),
    "manyties": ("short", 1, True),
}


def file_names(n_lines: int, shape: str = "w1") -> tuple[str, str]:
    """``(run file name, qrels file name)`` of a size and shape."""
    tail = "" if shape == "w1" else f"_{shape}"
    return f"run_{n_lines}{tail}.txt", f"qrels_{n_lines}{tail}.txt"


def _docno_format(style: str):
    if style == "D7":
        return lambda d: f"D{d:07d}"
    if style == "short":
        return lambda d: f"d{d}"
    return lambda d: f"clueweb12-{d % 1000:04d}tw-{d % 97:02d}-{d // 1000:05d}-{d % 89:02d}"


def _grades(rng: np.random.Generator, rank: np.ndarray) -> np.ndarray:
    """Grades 0-3, more relevant near the top (rank is 0-based, ``-1`` = unretrieved)."""
    top = np.where(rank < 0, 0.15, 0.9 * np.exp(-np.maximum(rank, 0) / 150.0) + 0.1)
    u = rng.random(rank.shape)
    # P(grade >= 1) = top * 0.8, P(>= 2) = top * 0.4, P(3) = top * 0.15
    return (u < top * 0.8).astype(np.int64) + (u < top * 0.4) + (u < top * 0.15)


def write_files(n_lines: int, out: Path, seed: int = SEED, shape: str = "w1") -> tuple[Path, Path]:
    """Write the run and qrels files of ``n_lines`` and ``shape`` (:data:`SHAPES`;
    skipped if both exist)."""
    if n_lines % DOCS_PER_QUERY:
        raise ValueError(f"size must be a multiple of {DOCS_PER_QUERY}")
    style, decimals, shuffled = SHAPES[shape]
    fmt = _docno_format(style)
    out.mkdir(parents=True, exist_ok=True)
    run_name, qrels_name = file_names(n_lines, shape)
    run_path, qrels_path = out / run_name, out / qrels_name
    if run_path.exists() and qrels_path.exists():
        return run_path, qrels_path
    nq = n_lines // DOCS_PER_QUERY
    rng = np.random.default_rng(seed)
    tmp_run, tmp_qrels = run_path.with_suffix(".tmp"), qrels_path.with_suffix(".tmp")
    with open(tmp_run, "w") as frun, open(tmp_qrels, "w") as fqrels:
        for start in range(0, nq, CHUNK_QUERIES):
            m = min(CHUNK_QUERIES, nq - start)
            qids = np.arange(start + 1, start + m + 1)
            base = rng.integers(0, CORPUS, size=(m, 1))
            step = rng.integers(1, CORPUS, size=(m, 1))
            j = np.arange(DOCS_PER_QUERY + JUDGED_UNRETRIEVED)
            docs = (base + step * j) % CORPUS  # distinct within a query
            # scores: decreasing with rank, 4 decimals (occasional ties)
            inc = rng.exponential(0.004, size=(m, DOCS_PER_QUERY))
            score = 25.0 - np.cumsum(inc, axis=1)
            if decimals == 1:  # many ties: the same range as w1's scores, 1 decimal
                score = 25.0 - (25.0 - score) * 10.0 / max(float(25.0 - score.min()), 1e-9)
            score = np.round(score, decimals)
            line_order = np.arange(DOCS_PER_QUERY)
            if shuffled:  # from a stream of its own: the other draws stay those of w1
                shuffle_rng = np.random.default_rng([seed, start])
            lines = []
            for qi in range(m):
                q = qids[qi]
                d, s = docs[qi], score[qi]
                if shuffled:
                    line_order = shuffle_rng.permutation(DOCS_PER_QUERY)
                lines.extend(
                    f"{q} Q0 {fmt(d[r])} {r + 1} {s[r]:.{decimals}f} bench\n" for r in line_order
                )
            frun.write("".join(lines))
            # judged: 80 retrieved (biased to the top) + 20 unretrieved
            key = rng.random((m, DOCS_PER_QUERY)) * (1.0 + np.arange(DOCS_PER_QUERY) / 60.0)
            pos = np.argsort(key, axis=1)[:, :JUDGED_RETRIEVED]
            unret = np.broadcast_to(np.arange(DOCS_PER_QUERY, DOCS_PER_QUERY + JUDGED_UNRETRIEVED),
                                    (m, JUDGED_UNRETRIEVED))
            jpos = np.concatenate([pos, unret], axis=1)
            rank = np.where(jpos < DOCS_PER_QUERY, jpos, -1)
            grade = _grades(rng, rank)
            shuffle = np.argsort(rng.random(jpos.shape), axis=1)
            jpos = np.take_along_axis(jpos, shuffle, axis=1)
            grade = np.take_along_axis(grade, shuffle, axis=1)
            jdocs = np.take_along_axis(docs, jpos, axis=1)
            qlines = []
            for qi in range(m):
                q = qids[qi]
                qlines.extend(f"{q} 0 {fmt(d)} {g}\n" for d, g in zip(jdocs[qi], grade[qi]))
            fqrels.write("".join(qlines))
    tmp_run.replace(run_path)
    tmp_qrels.replace(qrels_path)
    return run_path, qrels_path


def write_arrays(out: Path, n_queries: int = 10_000, n_docs: int = 100, seed: int = SEED) -> Path:
    """Write ``arrays.npz`` with ``y_true`` (int grades 0-3) and ``y_score`` (1 decimal)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "arrays.npz"
    if path.exists():
        return path
    rng = np.random.default_rng(seed + 3)
    y_score = np.round(rng.random((n_queries, n_docs)), 1)
    # grades loosely follow the score so the NDCG values are not all alike
    u = rng.random((n_queries, n_docs)) * 0.7 + 0.3 * y_score
    y_true = np.digitize(u, [0.45, 0.7, 0.85]).astype(np.int64)
    np.savez(path, y_true=y_true, y_score=y_score)
    return path


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 3_000_000, 10_000_000],
                    help="run sizes in lines (multiples of 1000)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--shapes", nargs="+", default=["w1"], choices=sorted(SHAPES))
    args = ap.parse_args(argv)
    for n in args.sizes:
        for shape in args.shapes:
            r, q = write_files(n, args.out, args.seed, shape)
            print(f"{r} ({r.stat().st_size / 1e6:.0f} MB), {q} ({q.stat().st_size / 1e6:.0f} MB)")
    print(write_arrays(args.out, seed=args.seed))


if __name__ == "__main__":
    main()
