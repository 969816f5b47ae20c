"""Cost of the unjudged bounds (issue 30): ``evalkit.bounds.unjudged_bounds`` against
``evalkit.evaluate`` on the same data, in one process (reading excluded: both take the
same read qrels and runs).

    python benchmarks/bounds.py                  # 17 Robust 2003 runs x 4 flavours, 7 rounds
    python benchmarks/bounds.py --repeat 11 --json bounds.json

Workload: the ``many`` configuration of ``benchmarks/small.py`` (the 17 Robust 2003
runs of ``../shared/data/trectools_robust03``, 100 topics x 1,000 documents each, and
the flavours ``trec_eval.ndcg_cut@10``, ``trec_eval.ndcg_cut@100``, ``trec_eval.ndcg``,
``ndcg(gain=exp2,...)@10``), plus ``P@10`` and ``ap`` (the metrics whose bounds need no
IDCG). Each round times, in an order rotated from round to round (load on a shared
machine hits both alike):

* ``none``: ``evalkit.evaluate(qrels, runs, flavours)``;
* ``bounds``: ``unjudged_bounds(qrels, runs, flavours)`` (the value, the upper bound,
  the condensed value; the default ``high``: the qrels' largest grade).

Printed: the median of each and the ratio ``bounds / none`` (the issue's target: at
most 2). The times are wall-clock times on whatever machine runs it; the numbers in
``benchmarks/README.md`` say which.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import evalkit  # noqa: E402
from evalkit.bounds import unjudged_bounds  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "trectools_robust03"
FLAVOURS = ["trec_eval.ndcg_cut@10", "trec_eval.ndcg_cut@100", "trec_eval.ndcg",
            "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@10", "P@10", "ap"]


def load() -> tuple[evalkit.Qrels, list[evalkit.Run]]:
    """The Robust 2003 qrels and its 17 runs, read once."""
    qrels = evalkit.read_qrels(DATA / "robust03_qrels.txt")
    runs = [evalkit.read_run(p) for p in sorted((DATA / "runs").glob("input.*.gz"))]
    return qrels, runs


def rounds(repeat: int, flavours: list[str]) -> dict[str, list[float]]:
    """Seconds of each command in each of ``repeat`` rounds (order rotated)."""
    qrels, runs = load()
    commands = {
        "none": lambda: evalkit.evaluate(qrels, runs, flavours),
        "bounds": lambda: unjudged_bounds(qrels, runs, flavours),
    }
    names = list(commands)
    times: dict[str, list[float]] = {n: [] for n in names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in names:  # warm-up: imports, registry, first-call caches
            commands[n]()
        for r in range(repeat):
            for n in names[r % 2:] + names[: r % 2]:
                t0 = time.perf_counter()
                commands[n]()
                times[n].append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    """Run the rounds, print medians and the ratio; ``--json`` keeps the raw times."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("-m", "--measure", action="append", default=None, help="flavours (default: the six above)")
    args = ap.parse_args(argv)
    flavours = args.measure or FLAVOURS
    times = rounds(args.repeat, flavours)
    med = {n: statistics.median(t) for n, t in times.items()}
    print(f"17 Robust 2003 runs x {len(flavours)} flavours, median of {args.repeat} rounds")
    print(f"  none    {med['none']:.3f} s")
    print(f"  bounds  {med['bounds']:.3f} s")
    print(f"  ratio   {med['bounds'] / med['none']:.2f} (target: at most 2)")
    if args.json is not None:
        args.json.write_text(json.dumps({"flavours": flavours, "times": times}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
