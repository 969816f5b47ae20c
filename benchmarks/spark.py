"""The Spark backend's two benchmarks (issue 12), printed as ratios.

    python benchmarks/spark.py --dry-run          # both, small (W1 at 1 M lines, big at 2 M): a few minutes
    python benchmarks/spark.py                    # both, full size: W1 at 10 M, big at 50 M lines
    python benchmarks/spark.py --only w1          # W1 only (10 M lines)
    python benchmarks/spark.py --only big         # the big case only (50 M lines, 1.7 GB of text)

1. **W1 overhead**: W1 (``benchmarks/generate.py``; 10 M run lines, 10,000 queries)
   through the local engine, Spark ``local[1]`` and Spark ``local[2]``: the whole
   evaluation, reading both text files included, of trec_eval's ``ndcg_cut.10``.
   Printed: each time over the local engine's (Spark's overhead on one machine) and
   ``local[1]`` over ``local[2]`` (the speed-up from one to two cores). The JVM start
   (``SparkSession`` creation) is reported apart, not in the times.
2. **big**: W1's shape at 50 M run lines (1.7 GB of text, 50,000 queries) through
   Spark ``local[2]`` with ``spark.driver.memory`` capped at ``--driver-memory``
   (default 1g, well below the data), evaluated to completion. Printed: the time, the
   peak memory, and the ratios data / driver memory and peak memory / data.

Each measurement is a fresh Python process. **Peak memory** is the largest sum of
the resident set sizes (``VmRSS``) of that process and all its descendants (the
local-mode JVM and its Python workers), sampled from ``/proc`` every 0.2 s (and at
least the process's own ``ru_maxrss``); a spike shorter than 0.2 s can be missed.

``--dry-run`` runs both at small sizes (``--lines``/``--big-lines`` change them),
prints the same tables, stores the measured seconds per million lines in
``benchmarks/data/spark_dry_run.json``, and prints how long the full runs will take
on this machine (linear in the lines, plus writing the files the first time); a
full run prints that estimate before it starts. The data files are written to
``benchmarks/data/`` (git-ignored) the first time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
SPEC = "trec_eval.ndcg_cut@10"


class TreePeak:
    """Peak resident memory of this process plus its descendants (the local-mode
    JVM and its Python workers), sampled from ``/proc`` every 0.2 s on a thread."""

    def __init__(self):
        import threading

        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    @staticmethod
    def _tree_rss_kb() -> int:
        parent, rss = {}, {}
        for stat in Path("/proc").glob("[0-9]*/status"):
            try:
                fields = dict(line.split(":", 1) for line in stat.read_text().splitlines() if ":" in line)
            except OSError:
                continue
            pid = int(stat.parent.name)
            parent[pid] = int(fields.get("PPid", "0").strip())
            rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
        tree, frontier = {os.getpid()}, [os.getpid()]
        while frontier:
            p = frontier.pop()
            kids = [c for c, pp in parent.items() if pp == p and c not in tree]
            tree.update(kids)
            frontier += kids
        return sum(rss.get(p, 0) for p in tree)

    def _loop(self):
        while not self._stop.wait(0.2):
            self.peak_kb = max(self.peak_kb, self._tree_rss_kb())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return max(self.peak_kb, own) / 1024.0


def child(engine: str, qrels: str, run: str, master: str, driver_memory: str | None, partitions: int | None):
    """One measurement; prints JSON ``{seconds, startup, peak_mb, value}``."""
    import evalkit

    peak = TreePeak()
    startup = 0.0
    if engine == "local":
        start = time.perf_counter()
        res = evalkit.evaluate(evalkit.read_qrels(qrels), evalkit.read_run(run), [SPEC])
        seconds = time.perf_counter() - start
    else:
        from evalkit import spark as eks

        t0 = time.perf_counter()
        conf = {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": str(partitions or 200)}
        if driver_memory:
            conf["spark.driver.memory"] = driver_memory
        session = eks.session(master, conf)
        session.sparkContext.setLogLevel("ERROR")
        startup = time.perf_counter() - t0
        start = time.perf_counter()
        res = eks.evaluate(eks.read_qrels(session, qrels), eks.read_run(session, run), [SPEC],
                           partitions=partitions)
        seconds = time.perf_counter() - start
    peak_mb = peak.stop()
    if engine != "local":
        session.stop()
    print(json.dumps({"seconds": seconds, "startup": startup, "peak_mb": peak_mb,
                      "value": float(res.means()[0, 0])}))


def measure(engine, qrels, run, master="", driver_memory=None, partitions=None, repeat=1) -> dict:
    rows = []
    for _ in range(repeat):
        cmd = [sys.executable, __file__, "--_child", engine, str(qrels), str(run), master or "-",
               driver_memory or "-", str(partitions or 0)]
        # the executors' Python workers import this checkout's evalkit too (in local mode
        # they inherit PYTHONPATH; on a cluster, ship it: docs/scale.md)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE.parent),
                                                                        os.environ.get("PYTHONPATH")]))}
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        if proc.returncode:
            raise SystemExit(f"{engine} {master} failed:\n{proc.stderr[-3000:]}")
        rows.append({**json.loads(proc.stdout.strip().splitlines()[-1]), "wall": wall})
    return {key: statistics.median(r[key] for r in rows) for key in rows[0]}


W1_LINES, BIG_LINES = 10_000_000, 50_000_000
DRY_W1_LINES, DRY_BIG_LINES = 1_000_000, 2_000_000
ESTIMATE = HERE / "data" / "spark_dry_run.json"


def _gib(size: str) -> float:
    """``"1g"``, ``"512m"`` (Spark's memory strings) in GiB."""
    unit = size[-1].lower()
    return float(size[:-1]) / {"g": 1, "m": 1024, "k": 1024 ** 2}[unit] if unit in "gmk" else float(size) / 2**30


def _files(lines: int, rates: dict):
    """The W1 files of ``lines`` (written the first time; the seconds per million
    lines it took go into ``rates["generate"]``)."""
    from generate import write_files

    fresh = not run_file(lines).exists()
    t0 = time.perf_counter()
    run, qrels = write_files(lines, HERE / "data")
    if fresh:
        rates["generate"] = (time.perf_counter() - t0) / (lines / 1e6)
    return run, qrels


def _rate(rates: dict, key: str, r: dict, lines: int) -> None:
    """A job's seconds at ``lines`` and its fixed cost (process and JVM start), for the estimate."""
    rates[key] = {"seconds": r["seconds"], "lines": lines, "fixed_s": max(r["wall"] - r["seconds"], 0.0)}


def bench_w1(lines: int, partitions, repeat, rates: dict) -> None:
    """W1 through the local engine, Spark local[1] and local[2]; prints the table."""
    run, qrels = _files(lines, rates)
    size_mb = run.stat().st_size / 2**20
    print(f"\n### W1 overhead: {lines:,} run lines ({size_mb:.0f} MB of text), {SPEC}\n")
    print("| job | median s | x local engine | JVM start s | peak MB | mean value |")
    print("|---|---|---|---|---|---|")
    base = measure("local", qrels, run, repeat=repeat)
    print(f"| local engine | {base['seconds']:.2f} | 1.00 | - | {base['peak_mb']:.0f} | {base['value']:.6f} |",
          flush=True)
    out = {"local": base}
    for master in ("local[1]", "local[2]"):
        r = out[master] = measure("spark", qrels, run, master, None, partitions, repeat)
        print(f"| spark {master} | {r['seconds']:.2f} | {r['seconds'] / base['seconds']:.2f} | "
              f"{r['startup']:.1f} | {r['peak_mb']:.0f} | {r['value']:.6f} |", flush=True)
    speedup = out["local[1]"]["seconds"] / out["local[2]"]["seconds"]
    print(f"\nSpark overhead on one machine: local[1] {out['local[1]']['seconds'] / base['seconds']:.2f} x, "
          f"local[2] {out['local[2]']['seconds'] / base['seconds']:.2f} x the local engine's time; "
          f"speed-up from 1 to 2 cores: {speedup:.2f} x")
    same = all(abs(out[m]["value"] - base["value"]) <= 1e-12 for m in ("local[1]", "local[2]"))
    print(f"the three means agree to 1e-12: {same}")
    for key, r in out.items():
        _rate(rates, key, r, lines)


def bench_big(lines: int, driver_memory: str, partitions, repeat, rates: dict) -> None:
    """The larger-than-memory case through Spark local[2]; prints the table."""
    run, qrels = _files(lines, rates)
    size_gib = (run.stat().st_size + qrels.stat().st_size) / 2**30
    print(f"\n### big: {lines:,} run lines, {size_gib:.2f} GiB of text (run + qrels), "
          f"spark.driver.memory={driver_memory}\n")
    print("| job | s | JVM start s | peak MB (process tree) | data / driver memory | peak / data | mean value |")
    print("|---|---|---|---|---|---|---|")
    r = measure("spark", qrels, run, "local[2]", driver_memory, partitions, repeat)
    print(f"| spark local[2] | {r['seconds']:.1f} | {r['startup']:.1f} | {r['peak_mb']:.0f} | "
          f"{size_gib / _gib(driver_memory):.2f} | {r['peak_mb'] / 1024 / size_gib:.2f} | {r['value']:.6f} |",
          flush=True)
    _rate(rates, "big", r, lines)


def _estimate(which: tuple[str, ...], w1_lines: int, big_lines: int) -> str:
    """How long the full runs take at most, from the dry run's measurements: each job
    linear in the lines from its dry-run point (an upper bound while part of Spark's
    time is fixed per job and partition), plus the process and JVM starts, and writing
    the files the first time."""
    if not ESTIMATE.exists():
        return "no estimate yet: run `python benchmarks/spark.py --dry-run` first"
    rate = json.loads(ESTIMATE.read_text())
    total, parts = 0.0, []
    for name, lines in (("w1", w1_lines), ("big", big_lines)):
        keys = ("local", "local[1]", "local[2]") if name == "w1" else ("big",)
        if name not in which:
            continue
        if not all(k in rate for k in keys):
            return f"no estimate for {name}: its dry run is missing (run --dry-run without --only)"
        secs = sum(rate[k]["seconds"] * lines / rate[k]["lines"] + rate[k]["fixed_s"] for k in keys)
        if not run_file(lines).exists():
            secs += rate.get("generate", 0.0) * lines / 1e6
        parts.append(f"{name} ({lines:,} lines) at most about {secs / 60:.0f} min")
        total += secs
    return (f"expected on this machine: {', '.join(parts)}; total at most about {total / 60:.0f} min "
            f"(linear from the dry run of {rate['date']}; a loaded machine takes longer)")


def run_file(lines: int) -> Path:
    from generate import file_names

    return HERE / "data" / file_names(lines, "w1")[0]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("w1", "big"), help="run one of the two (default: both)")
    parser.add_argument("--dry-run", action="store_true",
                        help="small sizes (W1 1 M, big 2 M lines) and an estimate of the full runs' time")
    parser.add_argument("--lines", type=int, default=None, help="W1 run lines (default 10 M; dry run 1 M)")
    parser.add_argument("--big-lines", type=int, default=None, help="big run lines (default 50 M; dry run 2 M)")
    parser.add_argument("--driver-memory", default="1g", help="spark.driver.memory of the big case (default 1g)")
    parser.add_argument("--partitions", type=int, default=None, help="query partitions (default 200)")
    parser.add_argument("--repeat", type=int, default=1, help="measurements per job (the median is printed)")
    parser.add_argument("--_child", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._child:
        engine, qrels, run, master, memory, parts = args._child
        child(engine, qrels, run, master, None if memory == "-" else memory, int(parts) or None)
        return
    which = (args.only,) if args.only else ("w1", "big")
    w1_lines = args.lines or (DRY_W1_LINES if args.dry_run else W1_LINES)
    big_lines = args.big_lines or (DRY_BIG_LINES if args.dry_run else BIG_LINES)
    if not args.dry_run:
        print(_estimate(which, w1_lines, big_lines), flush=True)
    rates: dict = {}
    if "w1" in which:
        bench_w1(w1_lines, args.partitions, args.repeat, rates)
    if "big" in which:
        bench_big(big_lines, args.driver_memory, args.partitions, args.repeat, rates)
    if args.dry_run:
        old = json.loads(ESTIMATE.read_text()) if ESTIMATE.exists() else {}
        ESTIMATE.parent.mkdir(parents=True, exist_ok=True)
        ESTIMATE.write_text(json.dumps({**old, **rates, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}))
        print("\n" + _estimate(("w1", "big"), W1_LINES, BIG_LINES))


if __name__ == "__main__":
    main()
