"""Small generated benchmarks for the results store, gate and history tests (written
into the test's tmp_path; nothing from ../shared).

20 topics ``q01`` ... ``q20``, ten documents each, ``d00`` ... ``d09``, graded 3, 2, 2,
1, 1, then 0 (all judged). The runs:

* ``baseline`` -- every topic ranked ideally (NDCG 1);
* ``perturbed`` -- as the baseline, but topics :data:`DROPPED` ranked in reverse (their
  NDCG@10 drops by about 0.4);
* ``tied`` -- as the baseline, but every document of topics :data:`DROPPED` has the
  same score: under trec_eval's tie order (docno descending) they are ranked in
  reverse, as in ``perturbed``; the optimistic order of the ties is the ideal one, so
  the difference lies inside the tie spread.
"""

from __future__ import annotations

from pathlib import Path

TOPICS = [f"q{i:02d}" for i in range(1, 21)]
DOCS = [f"d{j:02d}" for j in range(10)]
GRADES = [3, 2, 2, 1, 1, 0, 0, 0, 0, 0]
DROPPED = ("q03", "q07", "q12")


def write_qrels(path: Path, change: str | None = None) -> Path:
    """The qrels; ``change``: a topic whose first document is graded 1 instead of 3."""
    lines = [f"{q} 0 {d} {1 if (q == change and j == 0) else g}"
             for q in TOPICS for j, (d, g) in enumerate(zip(DOCS, GRADES))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_run(path: Path, kind: str = "baseline", tag: str = "sys") -> Path:
    lines = []
    for q in TOPICS:
        for j, d in enumerate(DOCS):
            score = 10.0 - j
            if q in DROPPED and kind == "perturbed":
                score = 1.0 + j
            elif q in DROPPED and kind == "tied":
                score = 1.0
            lines.append(f"{q} Q0 {d} {j + 1} {score} {tag}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GATES = """\
gates:
  - name: few-worse
    flavour: ndcg@10
    max_worse_queries: {count: 2, by: 0.1}
  - name: mean-drop
    flavour: ndcg
    max_drop: 0.02
"""


def write_benchmark(root: Path, candidate: str = "perturbed", gates: str = GATES, extra: str = "") -> Path:
    """qrels, the baseline and a candidate run (``perturbed``, ``tied`` or ``baseline``)
    and ``config.yaml`` with :data:`GATES`; returns the config's path."""
    root.mkdir(parents=True, exist_ok=True)
    if not (root / "qrels.txt").exists():
        write_qrels(root / "qrels.txt")
    write_run(root / "baseline.run", "baseline", "base")
    write_run(root / "candidate.run", candidate, "cand")
    config = root / "config.yaml"
    config.write_text(f"""\
qrels: qrels.txt
runs:
  - {{name: baseline, path: baseline.run}}
  - {{name: candidate, path: candidate.run}}
baseline: baseline
flavours:
  ndcg: trec_eval.ndcg_cut
  exp: "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)"
cutoffs: [5, 10]
{gates}{extra}""", encoding="utf-8")
    return config
