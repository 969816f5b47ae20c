"""Write the quick-start example data from the worked examples of published NDCG tutorials.

Run from the repository root: ``python examples/make_quickstart.py``. The output is
committed (``examples/quickstart/``) so the quick start works on a fresh clone; this
script documents where every number comes from and regenerates the files.

Topics (one per worked example):

* ``bluetooth-headphones``: judgement list (Table 1) and returned list (Table 3) of
  V. Mehra, "So you think you know NDCG?" (2025,
  https://vipulmehra.com/blog/metrics/ndcg): NDCG@5 = 6.31 / 14.6 ~ 0.43 (exp2).
* ``ah-example``: an A-H example of a tutorial notebook on scikit-learn's ``ndcg_score``.
* ``movie-user``: the two recommendation systems of a set of NDCG lecture notes
  (true ratings [5,4,3,2,1,3,0,4], System A and System B orderings).
* ``corpus-recall``: the lecture notes' IDCG from the corpus / from the returned list example
  (corpus relevances [5,5,4,3,3,2,2,1,1,0], returned items [7,2,9,5,4]).
* ``tie-example``: the notebook's tie example (grades [3,2,1,0,0], scores
  [.9,.8,.8,.8,.1]).

``system_a`` holds the lists exactly as these examples rank them. ``system_b`` holds the
lecture notes' System B for ``movie-user`` and, for the other topics, an alternative ranking
written by us so that the two systems can be compared.
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parent / "quickstart"

# topic -> {docno: grade}
QRELS: dict[str, dict[str, int]] = {
    "bluetooth-headphones": {
        "sony-bt": 3, "bose-wireless": 3, "jbl-bt": 2, "wireless-earbuds": 2,
        "wired-headphones": 1, "bt-speaker": 0, "gaming-headset": 0,
    },
    "ah-example": dict(zip("ABCDEFGH", [3, 2, 3, 0, 1, 2, 0, 1])),
    "movie-user": {f"item{i}": r for i, r in enumerate([5, 4, 3, 2, 1, 3, 0, 4])},
    "corpus-recall": {f"doc{i}": r for i, r in enumerate([5, 5, 4, 3, 3, 2, 2, 1, 1, 0])},
    "tie-example": {f"t{i}": r for i, r in enumerate([3, 2, 1, 0, 0], start=1)},
}

# system -> topic -> list of (docno, score), best first
RUNS: dict[str, dict[str, list[tuple[str, float]]]] = {
    "system_a": {
        "bluetooth-headphones": [
            ("bt-speaker", 7), ("wired-headphones", 6), ("jbl-bt", 5), ("sony-bt", 4),
            ("wireless-earbuds", 3), ("gaming-headset", 2), ("bose-wireless", 1),
        ],
        "ah-example": list(zip("ABCDEFGH", [0.60, 0.20, 0.80, 0.40, 0.10, 0.30, 0.05, 0.70])),
        "movie-user": [(f"item{i}", 8 - r) for r, i in enumerate([0, 7, 1, 3, 5, 2, 4, 6])],
        "corpus-recall": [(f"doc{i}", 5 - r) for r, i in enumerate([7, 2, 9, 5, 4])],
        "tie-example": list(zip([f"t{i}" for i in range(1, 6)], [0.9, 0.8, 0.8, 0.8, 0.1])),
    },
    "system_b": {
        "bluetooth-headphones": [
            ("jbl-bt", 7), ("wireless-earbuds", 6), ("sony-bt", 5), ("wired-headphones", 4),
            ("bose-wireless", 3), ("bt-speaker", 2), ("gaming-headset", 1),
        ],
        "ah-example": list(zip("ABCDEFGH", [0.50, 0.70, 0.40, 0.10, 0.80, 0.60, 0.20, 0.30])),
        "movie-user": [(f"item{i}", 8 - r) for r, i in enumerate([2, 5, 4, 6, 0, 1, 7, 3])],
        "corpus-recall": [(f"doc{i}", 8 - r) for r, i in enumerate([0, 1, 9, 8, 7, 6, 3, 2])],
        "tie-example": list(zip([f"t{i}" for i in range(1, 6)], [0.8, 0.8, 0.9, 0.8, 0.1])),
    },
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "qrels.txt", "w") as f:
        for topic, docs in QRELS.items():
            for docno, grade in docs.items():
                f.write(f"{topic} 0 {docno} {grade}\n")
    for system, topics in RUNS.items():
        with open(OUT / f"{system}.run", "w") as f:
            for topic, ranked in topics.items():
                ranked = sorted(ranked, key=lambda pair: -pair[1])  # stable: ties keep list order
                for rank, (docno, score) in enumerate(ranked, start=1):
                    f.write(f"{topic} Q0 {docno} {rank} {score:g} {system}\n")


if __name__ == "__main__":
    main()
