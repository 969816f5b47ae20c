"""The Spark backend's benchmarks (issue 12); printed as ratios.

    python benchmarks/spark.py                         # W1 (10 M lines): local engine, Spark local[1], local[2]
    python benchmarks/spark.py --lines 100000          # a quick look (100 queries)
    python benchmarks/spark.py --big                   # 50 M lines, spark.driver.memory=2g: more data than memory
    python benchmarks/spark.py --big --lines 100000 --driver-memory 1g   # the big case's machinery, small

Each measurement is a fresh Python process. Its time is the job (reading the files
and evaluating trec_eval's ``ndcg_cut.10``; for Spark from a started session, so
the JVM start is reported apart); its peak memory is the summed resident set of
the process and its descendants (the JVM of local mode and its Python workers),
sampled from ``/proc``.

* **W1 overhead**: the local engine against Spark ``local[1]`` and ``local[2]`` on
  the same files (``benchmarks/generate.py``): the cost of Spark on one machine and
  the speed-up from one to two cores.
* **big** (``--big``): 50 M run lines (1.7 GB of text) with ``spark.driver.memory``
  capped well below the data; completes because each query partition is evaluated
  on its own (``--partitions`` of them, 200 by default), where the in-process engine
  holds the whole run.
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
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode:
            raise SystemExit(f"{engine} {master} failed:\n{proc.stderr[-3000:]}")
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(r[key] for r in rows) for key in rows[0]}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=None, help="run lines (default 10 M; 50 M with --big)")
    parser.add_argument("--big", action="store_true", help="the larger-than-memory case (Spark only)")
    parser.add_argument("--driver-memory", default="2g", help="spark.driver.memory of --big (default 2g)")
    parser.add_argument("--partitions", type=int, default=None, help="query partitions (default 200)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--_child", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._child:
        engine, qrels, run, master, memory, parts = args._child
        child(engine, qrels, run, master, None if memory == "-" else memory, int(parts) or None)
        return
    from generate import write_files

    lines = args.lines or (50_000_000 if args.big else 10_000_000)
    run, qrels = write_files(lines, HERE / "data")
    size_mb = run.stat().st_size / 2**20
    print(f"| job | lines | run MB | median s | x local engine | JVM start s | peak MB | mean {SPEC} |")
    print("|---|---|---|---|---|---|---|---|")
    if args.big:
        r = measure("spark", qrels, run, "local[2]", args.driver_memory, args.partitions, args.repeat)
        print(f"| spark local[2], driver memory {args.driver_memory} | {lines:,} | {size_mb:.0f} | "
              f"{r['seconds']:.1f} | - | {r['startup']:.1f} | {r['peak_mb']:.0f} | {r['value']:.6f} |")
        return
    base = measure("local", qrels, run, repeat=args.repeat)
    print(f"| local engine | {lines:,} | {size_mb:.0f} | {base['seconds']:.2f} | 1.00 | - | "
          f"{base['peak_mb']:.0f} | {base['value']:.6f} |")
    for master in ("local[1]", "local[2]"):
        r = measure("spark", qrels, run, master, None, args.partitions, args.repeat)
        print(f"| spark {master} | {lines:,} | {size_mb:.0f} | {r['seconds']:.2f} | "
              f"{r['seconds'] / base['seconds']:.2f} | {r['startup']:.1f} | {r['peak_mb']:.0f} | {r['value']:.6f} |")


if __name__ == "__main__":
    main()
