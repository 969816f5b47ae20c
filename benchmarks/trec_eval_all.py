"""``evalkit eval -m all_trec`` against ``-m ndcg_cut.10`` on a generated run (issue 26).

    python benchmarks/trec_eval_all.py                      # 10 M lines, 3 rounds
    python benchmarks/trec_eval_all.py --size 1000000 --repeat 1 --data /tmp/bench

Each command is a fresh process timed from outside (interpreter start, imports,
reading both files and evaluating, printing trec_eval's lines with ``--format tsv``),
on W1's files (``benchmarks/generate.py``: 1,000 documents per query, 100 judgments a
query, grades 0-3). ``all_trec`` is 99 values per query (trec_eval 10.0's whole set);
the table gives the median wall time of each command and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data", type=Path, default=HERE / "data")
    args = ap.parse_args(argv)
    qrels, run = args.data / f"qrels_{args.size}.txt", args.data / f"run_{args.size}.txt"
    if not run.exists():
        subprocess.run([sys.executable, str(HERE / "generate.py"), "--sizes", str(args.size), "--out", str(args.data)],
                       check=True)
    times: dict[str, list[float]] = {"ndcg_cut.10": [], "all_trec": []}
    for _ in range(args.repeat):
        for measure in times:  # alternate: load on a shared machine hits both alike
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "evalkit", "eval", "-m", measure, "--format", "tsv", str(qrels),
                            str(run)], check=True, stdout=subprocess.DEVNULL)
            times[measure].append(time.perf_counter() - t)
    base = statistics.median(times["ndcg_cut.10"])
    print(f"{args.size:,} lines, median of {args.repeat}")
    for measure, ts in times.items():
        m = statistics.median(ts)
        print(f"  -m {measure:<12} {m:7.2f} s   ratio {m / base:5.2f}   ({', '.join(f'{x:.2f}' for x in ts)})")


if __name__ == "__main__":
    main()
