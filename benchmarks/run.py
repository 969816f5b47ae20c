"""Run every benchmark workload against every installed peer; print medians and ratios.

    python benchmarks/run.py                      # W1, W2, W3 and scaling (1M, 3M, 10M lines)
    python benchmarks/run.py --sizes 1000000      # quick: every workload at 1M lines
    python benchmarks/run.py --repeat 5 --json results.json

Each measurement runs in a fresh Python process (so peak memory is that job's own),
``--repeat`` times; the table shows the median wall time of the *job* (reading the
files and evaluating; imports and interpreter start are excluded), the peak resident
memory of the process, the value computed, and the ratio ``peer time / evalkit time``.
The data files are generated first if missing (``benchmarks/generate.py``).

Workloads (see ``benchmarks/README.md``):

* W1: read qrels + run, mean NDCG@10 as trec_eval's ``ndcg_cut.10``.
* W2: same files, 48 flavours (gains linear/exp2/map x discounts log2/jarvelin x IDCG
  judged/returned x cutoffs 5, 10, 20, 100) in one call. Peers compute the subset
  of those they support (noted in the table).
* W3: dense ``y_true``/``y_score`` (10,000 x 100), NDCG@10 with tie averaging, vs
  scikit-learn's ``ndcg_score(ignore_ties=False)``.
* scaling: W1 at every size.

Whole processes (issue 14; ``--whole``): what a user times. Each command is a fresh
process timed from outside, interpreter start and imports included, on every W1 shape
of ``generate.py`` (``--shapes``):

* ``evalkit``: ``python -m evalkit eval -m trec_eval.ndcg_cut@10 --format json QRELS RUN``
  (this checkout's evalkit);
* ``pytrec_eval``: a script reading both files with ``parse_qrel``/``parse_run`` and
  printing the mean ``ndcg_cut_10``;
* ``pyarrow-read``: a script that imports ``pyarrow.csv`` and reads the run file into a
  table (``read_csv``, space-delimited, six columns): the floor.

Every round runs each command once, in an order rotated from round to round (load on a
shared machine then hits every command alike); the table shows medians over
``--repeat`` rounds, the ratios of the medians, and the peak resident memory of each
process (``ru_maxrss`` from ``wait4``). ``--data`` puts the generated files elsewhere
(e.g. under ``/tmp``)::

    python benchmarks/run.py --whole --data /tmp/bench --sizes 1000000 3000000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

W2_GAINS = ("linear", "exp2", "map(1=1,2=3,3=7)")
W2_DISCOUNTS = ("log2", "jarvelin(base=2)")
W2_IDCG = ("judged", "returned")
W2_CUTOFFS = (5, 10, 20, 100)


def w2_flavours() -> list[str]:
    return [f"ndcg(gain={g},discount={d},idcg={i},ties=trec_eval)@{k}"
            for g in W2_GAINS for d in W2_DISCOUNTS for i in W2_IDCG for k in W2_CUTOFFS]


# --------------------------------------------------------------------------- jobs
# Each job returns (value, note); it runs in its own process, timed from its start.

def job_evalkit_w1(run_path, qrels_path):
    import numpy as np

    import evalkit

    qrels = evalkit.read_qrels(qrels_path)
    run = evalkit.read_run(run_path)
    res = evalkit.evaluate(qrels, run, "trec_eval.ndcg_cut@10")
    return float(np.nanmean(res.values[0, 0])), "trec_eval.ndcg_cut@10"


def job_evalkit_w2(run_path, qrels_path):
    import numpy as np

    import evalkit

    qrels = evalkit.read_qrels(qrels_path)
    run = evalkit.read_run(run_path)
    res = evalkit.evaluate(qrels, run, w2_flavours())
    means = np.nanmean(res.values[0], axis=1)
    assert len(means) == 48
    # report the trec_eval ndcg_cut.10 flavour, for comparison with peers
    i = w2_flavours().index("ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)@10")
    return float(means[i]), "48 flavours"


def _pytrec_eval_read(run_path, qrels_path):
    import pytrec_eval

    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    return qrels, run


def job_pytrec_eval_w1(run_path, qrels_path):
    import pytrec_eval

    qrels, run = _pytrec_eval_read(run_path, qrels_path)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    # trec_eval's mean is over the qrels' queries that the run answers
    values = [m["ndcg_cut_10"] for m in per_query.values()]
    return sum(values) / len(values), "ndcg_cut.10 (parse_qrel/parse_run)"


def job_pytrec_eval_w2(run_path, qrels_path):
    import pytrec_eval

    qrels, run = _pytrec_eval_read(run_path, qrels_path)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10,20,100"}).evaluate(run)
    values = [m["ndcg_cut_10"] for m in per_query.values()]
    return sum(values) / len(values), "4 of 48 (linear/log2/judged only)"


def job_ranx_w1(run_path, qrels_path):
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(str(qrels_path), kind="trec")
    run = Run.from_file(str(run_path), kind="trec")
    return float(evaluate(qrels, run, "ndcg@10")), "ndcg@10 (from_file)"


def job_ranx_w2(run_path, qrels_path):
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(str(qrels_path), kind="trec")
    run = Run.from_file(str(run_path), kind="trec")
    metrics = [f"{m}@{k}" for m in ("ndcg", "ndcg_burges") for k in W2_CUTOFFS]
    out = evaluate(qrels, run, metrics)
    return float(out["ndcg@10"]), "8 of 48 (ndcg, ndcg_burges)"


def job_ir_measures_w1(run_path, qrels_path):
    import ir_measures
    from ir_measures import nDCG

    qrels = ir_measures.read_trec_qrels(str(qrels_path))
    run = ir_measures.read_trec_run(str(run_path))
    out = ir_measures.calc_aggregate([nDCG @ 10], qrels, run)
    return float(out[nDCG @ 10]), "nDCG@10 (read_trec_*)"


def job_ir_measures_w2(run_path, qrels_path):
    import ir_measures
    from ir_measures import nDCG

    qrels = ir_measures.read_trec_qrels(str(qrels_path))
    run = ir_measures.read_trec_run(str(run_path))
    measures = [nDCG @ k for k in W2_CUTOFFS] + [nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7}) @ k for k in W2_CUTOFFS]
    out = ir_measures.calc_aggregate(measures, qrels, run)
    return float(out[nDCG @ 10]), "8 of 48 (nDCG, nDCG(gains=map))"


def _arrays(where: Path = DATA):
    import numpy as np

    data = np.load(where / "arrays.npz")
    return data["y_true"], data["y_score"]


def job_evalkit_w3(y_true, y_score):
    import evalkit.arrays as ea

    return float(ea.score(y_true, y_score, k=10).mean()), "arrays.score(k=10)"


def job_sklearn_w3(y_true, y_score):
    from sklearn.metrics import ndcg_score

    return float(ndcg_score(y_true, y_score, k=10, ignore_ties=False)), "ndcg_score(ignore_ties=False)"


JOBS = {
    ("W1", "evalkit"): job_evalkit_w1,
    ("W1", "pytrec_eval"): job_pytrec_eval_w1,
    ("W1", "ranx"): job_ranx_w1,
    ("W1", "ir_measures"): job_ir_measures_w1,
    ("W2", "evalkit"): job_evalkit_w2,
    ("W2", "pytrec_eval"): job_pytrec_eval_w2,
    ("W2", "ranx"): job_ranx_w2,
    ("W2", "ir_measures"): job_ir_measures_w2,
    ("W3", "evalkit"): job_evalkit_w3,
    ("W3", "sklearn"): job_sklearn_w3,
}
PEER_MODULES = {"evalkit": "evalkit", "pytrec_eval": "pytrec_eval", "ranx": "ranx",
                "ir_measures": "ir_measures", "sklearn": "sklearn"}


def _child(workload: str, tool: str, size: int, data: Path = DATA) -> None:
    """Run one job in this process and print a JSON line."""
    import resource

    fn = JOBS[(workload, tool)]
    if workload == "W3":
        args = _arrays(data)
    else:
        args = (data / f"run_{size}.txt", data / f"qrels_{size}.txt")
    # imports are not timed (evalkit's lazy pyarrow imports included); nor is
    # evalkit's component registry (plugin discovery and import of the built-in
    # components, about 30 ms once per process)
    __import__(PEER_MODULES[tool])
    if tool == "sklearn":
        import sklearn.metrics  # noqa: F401
    if tool == "evalkit":
        import evalkit
        import evalkit.arrays  # noqa: F401

        evalkit.default_registry()
        if workload != "W3":  # evalkit imports its reader's pyarrow modules lazily
            import pyarrow.compute  # noqa: F401
            import pyarrow.csv  # noqa: F401
    start, cpu = time.perf_counter(), time.process_time()
    value, note = fn(*args)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": peak_mb, "value": value, "note": note}))


def _measure(workload: str, tool: str, size: int, repeat: int, data: Path = DATA) -> dict | None:
    rows = []
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, __file__, "--_child", workload, tool, str(size), str(data)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"  {workload} {tool} {size}: failed\n{proc.stderr[-2000:]}", file=sys.stderr)
            return None
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {
        "seconds": statistics.median(r["seconds"] for r in rows),
        "all_seconds": [r["seconds"] for r in rows],
        "cpu": statistics.median(r["cpu"] for r in rows),
        "all_cpu": [r["cpu"] for r in rows],
        "peak_mb": statistics.median(r["peak_mb"] for r in rows),
        "value": rows[0]["value"],
        "note": rows[0]["note"],
    }


def _installed(tool: str) -> bool:
    from importlib.util import find_spec

    return find_spec(PEER_MODULES[tool]) is not None


def machine() -> str:
    import numpy

    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    versions = [f"Python {platform.python_version()}", f"numpy {numpy.__version__}"]
    for mod in ("pyarrow", "pytrec_eval", "ranx", "ir_measures", "sklearn", "numba"):
        try:
            from importlib.metadata import version

            dist = {"pytrec_eval": "pytrec_eval-terrier", "sklearn": "scikit-learn"}.get(mod, mod)
            versions.append(f"{mod} {version(dist)}")
        except Exception:
            pass
    return f"{cpu}, {os.cpu_count()} cores, {mem} RAM; " + ", ".join(versions)


# --------------------------------------------------------------------------- whole processes

_PYTREC_SCRIPT = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
values = [m["ndcg_cut_10"] for m in pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run).values()]
print(repr(sum(values) / len(values)))
"""

_ARROW_SCRIPT = """
import sys
import pyarrow.csv as csv
table = csv.read_csv(sys.argv[2], read_options=csv.ReadOptions(
    column_names=["qid", "q0", "docno", "rank", "score", "runid"]),
    parse_options=csv.ParseOptions(delimiter=" "))
print(table.num_rows)
"""


def whole_commands(run_path: Path, qrels_path: Path) -> dict[str, list[str]]:
    """The commands timed by ``--whole``: ``{tool: argv}``."""
    py = sys.executable
    return {
        "evalkit": [py, "-m", "evalkit", "eval", "-m", "trec_eval.ndcg_cut@10", "--format", "json",
                    str(qrels_path), str(run_path)],
        "pytrec_eval": [py, "-c", _PYTREC_SCRIPT, str(qrels_path), str(run_path)],
        "pyarrow-read": [py, "-c", _ARROW_SCRIPT, str(qrels_path), str(run_path)],
    }


def _whole_env(checkout: Path) -> dict[str, str]:
    """Children import ``checkout``'s evalkit and may write bytecode, as an installed
    package does (``PYTHONDONTWRITEBYTECODE`` would make every start compile evalkit)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(checkout), env.get("PYTHONPATH", "")) if p)
    return env


def _timed(argv: list[str], checkout: Path = HERE.parent) -> tuple[float, float, str]:
    """Run ``argv`` from ``checkout``'s root: ``(seconds, peak MB, stdout)``."""
    import tempfile

    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, cwd=checkout, env=_whole_env(checkout))
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        out.seek(0)
        text = out.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} failed ({proc.returncode}):\n{err[-2000:]}")
    return seconds, usage.ru_maxrss / 1024.0, text


def _whole_value(tool: str, text: str) -> float:
    if tool == "evalkit":
        runs = json.loads(text)["runs"]
        return float(next(iter(runs.values()))["all"]["trec_eval.ndcg_cut@10"])
    if tool == "pytrec_eval":
        return float(text.strip().splitlines()[-1])
    return float("nan")


def whole(sizes: list[int], shapes: list[str], repeat: int, data: Path, json_path: Path | None,
          baseline: Path | None = None) -> None:
    """Time whole processes (see the module docstring) and print the table.

    :param baseline: another checkout whose ``evalkit eval`` is timed in the same
        rounds (``evalkit-baseline``), for a before/after comparison.
    """
    from importlib.util import find_spec

    from generate import write_files

    checkouts = [HERE.parent] + ([baseline.resolve()] if baseline else [])
    for checkout in checkouts:  # compiled once, as an installed package is
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "evalkit")],
                       env=_whole_env(checkout), check=True, stdout=subprocess.DEVNULL)
    results = []
    for n in sorted(sizes):
        for shape in shapes:
            run_path, qrels_path = write_files(n, data, shape=shape)
            commands = whole_commands(run_path, qrels_path)
            if find_spec("pytrec_eval") is None:
                del commands["pytrec_eval"]
            where = {tool: HERE.parent for tool in commands}
            if baseline:
                commands["evalkit-baseline"] = commands["evalkit"]
                where["evalkit-baseline"] = baseline.resolve()
            tools = list(commands)
            for tool in tools:  # warm-up: the file cache
                _timed(commands[tool], where[tool])
            rows: dict[str, list] = {t: [] for t in tools}
            for r in range(repeat):
                for tool in tools[r % len(tools):] + tools[: r % len(tools)]:
                    print(f"  {shape} {n:,} round {r + 1} {tool} ...", file=sys.stderr, flush=True)
                    rows[tool].append(_timed(commands[tool], where[tool]))
            row = {"lines": n, "shape": shape, "mb": run_path.stat().st_size / 1e6}
            for tool in tools:
                row[tool] = {"seconds": statistics.median(x[0] for x in rows[tool]),
                             "all_seconds": [x[0] for x in rows[tool]],
                             "peak_mb": statistics.median(x[1] for x in rows[tool]),
                             "value": _whole_value(tool.replace("-baseline", ""), rows[tool][0][2])}
            results.append(row)
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    print()
    print("| shape | lines | run MB | evalkit s | pytrec_eval s | pyarrow read s | pytrec_eval / evalkit "
          "| evalkit / pyarrow read | evalkit MB | pytrec_eval MB | MB ratio | |value diff| |")
    print("|" + "---|" * 12)
    nan = {"seconds": float("nan"), "peak_mb": float("nan"), "value": float("nan")}
    for row in results:
        e, p, a = row["evalkit"], row.get("pytrec_eval", nan), row["pyarrow-read"]
        print(f"| {row['shape']} | {row['lines']:,} | {row['mb']:.0f} | {e['seconds']:.2f} | {p['seconds']:.2f} | "
              f"{a['seconds']:.2f} | {p['seconds'] / e['seconds']:.2f} | {e['seconds'] / a['seconds']:.2f} | "
              f"{e['peak_mb']:.0f} | {p['peak_mb']:.0f} | {e['peak_mb'] / p['peak_mb']:.2f} | "
              f"{abs(e['value'] - p['value']):.1e} |")
    if baseline:
        print(f"\nbaseline {baseline}:")
        print("| shape | lines | evalkit s | baseline s | baseline / evalkit | evalkit MB | baseline MB | same value |")
        print("|" + "---|" * 8)
        for row in results:
            e, b = row["evalkit"], row["evalkit-baseline"]
            print(f"| {row['shape']} | {row['lines']:,} | {e['seconds']:.2f} | {b['seconds']:.2f} | "
                  f"{b['seconds'] / e['seconds']:.2f} | {e['peak_mb']:.0f} | {b['peak_mb']:.0f} | "
                  f"{e['value'] == b['value']} |")
    by_shape: dict[str, dict[int, float]] = {}
    for row in results:
        by_shape.setdefault(row["shape"], {})[row["lines"]] = row["evalkit"]["seconds"]
    for shape, times in by_shape.items():
        if len(times) > 1:
            print(f"evalkit {shape} seconds per million lines: " + ", ".join(
                f"{n / 1e6:g}M: {t / (n / 1e6):.3f}" for n, t in sorted(times.items())))
    if json_path:
        json_path.write_text(json.dumps({"machine": machine(), "whole": results}, indent=1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="evalkit benchmarks (issue 4)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 3_000_000, 10_000_000],
                    help="run sizes in lines for W1/scaling; W2 uses the largest")
    ap.add_argument("--workloads", nargs="+", default=["W1", "W2", "W3"], choices=["W1", "W2", "W3"])
    ap.add_argument("--peers", nargs="+", default=None, help="tools to run (default: all installed)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None, help="also write the raw numbers here")
    ap.add_argument("--whole", action="store_true",
                    help="time whole processes (interpreter and imports included) against "
                         "pytrec_eval and pyarrow's CSV reader, on every --shapes")
    ap.add_argument("--shapes", nargs="+", default=["w1", "short", "long", "shuffled", "manyties"],
                    help="W1 shapes for --whole (generate.py's SHAPES)")
    ap.add_argument("--data", type=Path, default=DATA, help="where the generated files live")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="with --whole: also time this checkout's evalkit (before/after)")
    ap.add_argument("--_child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._child:
        _child(args._child[0], args._child[1], int(args._child[2]), Path(args._child[3]))
        return 0
    if args.whole:
        whole(args.sizes, args.shapes, args.repeat, args.data, args.json, args.baseline)
        return 0

    from generate import write_arrays, write_files  # noqa: E402  (benchmarks/ on sys.path)

    if {"W1", "W2"} & set(args.workloads):  # W3 alone needs only the arrays
        for n in args.sizes:
            write_files(n, args.data)
    if "W3" in args.workloads:
        write_arrays(args.data)
    tools = args.peers or [t for t in PEER_MODULES if _installed(t)]
    print(f"machine: {machine()}")
    results = []
    largest = max(args.sizes)
    plan = []
    if "W1" in args.workloads:
        plan += [("W1", n) for n in sorted(args.sizes)]
    if "W2" in args.workloads:
        plan.append(("W2", largest))
    if "W3" in args.workloads:
        plan.append(("W3", 0))
    # warm-up (numba caches, file cache), not measured
    for wl, n in plan:
        for tool in tools:
            if (wl, tool) in JOBS and wl != "W3" and n == min(args.sizes):
                subprocess.run([sys.executable, __file__, "--_child", wl, tool, str(n), str(args.data)],
                               capture_output=True)
    for wl, n in plan:
        base = None
        for tool in ["evalkit"] + [t for t in tools if t != "evalkit"]:
            if tool not in tools or (wl, tool) not in JOBS:
                continue
            print(f"  running {wl} {tool} {n or ''} ...", file=sys.stderr, flush=True)
            m = _measure(wl, tool, n, args.repeat, args.data)
            if m is None:
                continue
            m.update(workload=wl, tool=tool, lines=n)
            if tool == "evalkit":
                base = m
            results.append(m)
    w1_single = {r["lines"]: r["seconds"] for r in results if r["workload"] == "W1" and r["tool"] == "evalkit"}
    ek = {(r["workload"], r["lines"]): r for r in results if r["tool"] == "evalkit"}

    header = ("| workload | lines | tool | median s | x evalkit time | CPU s | x evalkit CPU | peak MB | mean value "
              "| |value - evalkit| | computes |")
    print()
    print(header)
    print("|" + "---|" * 11)
    for r in results:
        e = ek.get((r["workload"], r["lines"]))
        ratio = r["seconds"] / e["seconds"] if e else float("nan")
        cpu_ratio = r["cpu"] / e["cpu"] if e else float("nan")
        diff = abs(r["value"] - e["value"]) if e else float("nan")
        lines = f"{r['lines']:,}" if r["lines"] else "10,000 x 100"
        print(f"| {r['workload']} | {lines} | {r['tool']} | {r['seconds']:.3f} | {ratio:.2f} | {r['cpu']:.3f} | "
              f"{cpu_ratio:.2f} | {r['peak_mb']:.0f} | {r['value']:.12f} | {diff:.1e} | {r['note']} |")
    if ("W2", largest) in ek and largest in w1_single:
        print(f"\nW2 (48 flavours) / W1 (1 flavour) evalkit time at {largest:,} lines: "
              f"{ek[('W2', largest)]['seconds'] / w1_single[largest]:.2f}")
    if len(w1_single) > 1:
        sizes = sorted(w1_single)
        print("evalkit W1 seconds per million lines: " + ", ".join(
            f"{n / 1e6:g}M: {w1_single[n] / (n / 1e6):.3f}" for n in sizes))
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
