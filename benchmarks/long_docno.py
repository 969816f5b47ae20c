"""One very long document id must not slow loading down (issue 9).

    python benchmarks/long_docno.py              # 1 MB docno, 3 runs each, medians
    python benchmarks/long_docno.py --bytes 131072 --repeat 5

Reads the TREC 2003 Robust qrels (``../shared/data/trectools_robust03``, 128,796
judgments) and one of its runs, and evaluates trec_eval's ``ndcg_cut.10``: once as
shipped, once with the docno of one judgment replaced by a string of ``--bytes``
bytes (the same judgment, so the value may only change for that query). Prints the
median wall time of each (read + evaluate, in this process, after one warm-up) and
their ratio; the target is a ratio under 2 (before the fix: 27.8 s against 0.7 s,
because the string hash made one pass over every row per 8 bytes of the longest
docno; see ``evalkit.engine.factorize.LONG_STRING``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's evalkit, not another installed one
DATA = ROOT.parent / "shared" / "data" / "trectools_robust03"


def _job(qrels_path: Path, run_path: Path) -> tuple[float, float]:
    import evalkit

    start = time.perf_counter()
    qrels = evalkit.read_qrels(qrels_path)
    run = evalkit.read_run(run_path)
    res = evalkit.evaluate(qrels, run, "trec_eval.ndcg_cut@10")
    return time.perf_counter() - start, res.mean(res.systems[0], res.flavours[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bytes", type=int, default=1 << 20, help="length of the long docno (default 1 MB)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    qrels_path = DATA / "robust03_qrels.txt"
    run_path = sorted((DATA / "runs").glob("input.*.gz"))[0]
    lines = qrels_path.read_text().splitlines()
    qid, it, _, grade = lines[5].split()
    lines[5] = f"{qid} {it} {'L' * args.bytes} {grade}"
    with tempfile.TemporaryDirectory() as tmp:
        long_path = Path(tmp) / "qrels_long.txt"
        long_path.write_text("\n".join(lines) + "\n")
        times = {}
        for label, path in (("as shipped", qrels_path), (f"one {args.bytes}-byte docno", long_path)):
            _job(path, run_path)  # warm-up: imports, registry, OS cache
            runs = [_job(path, run_path) for _ in range(args.repeat)]
            times[label] = statistics.median(t for t, _ in runs)
            print(f"{label:>28}: {times[label]:.3f} s  (mean ndcg_cut.10 {runs[0][1]:.6f})")
    base, long_ = times.values()
    print(f"{'ratio':>28}: {long_ / base:.2f} (target < 2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
