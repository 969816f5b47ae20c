"""Whole-process benchmarks at the sizes people evaluate (issue 27): typical runs,
start-up, many systems; trec_eval's C binary as the floor of every table.

    python benchmarks/small.py                          # all three workloads, 5 rounds
    python benchmarks/small.py --workloads typical --repeat 7
    python benchmarks/small.py --json small.json        # also keep the raw times

Every command is a fresh process timed from outside (interpreter start, imports, reading,
evaluating, printing), as :func:`run._timed` does for ``run.py --whole``, in wall time and
in CPU time (the child's user + system time: steadier on a loaded machine): every round runs
every command of a table once, the order rotated from round to round (so load on a
shared machine hits every command alike); the tables show medians over ``--repeat``
rounds (at least 5 for the issue's targets) and the ratio of each median to evalkit's
and to the reference (``import numpy`` or trec_eval). evalkit's bytecode is compiled
first and the children may write bytecode, as for an installed package.

Workloads (``benchmarks/README.md``, section "Small inputs (issue 27)"):

* ``typical``: ``ndcg_cut.10`` of one run:
  ``dl20`` -- a DL-2020-shaped run written by :func:`write_dl20_like` (199 topics x 100
  passages = 19,900 lines, as TREC DL 2020's ``BIT.UA-run1``; the 54 judged topics and
  their judgments are the real ``qrels.dl20-passage.txt``) and
  ``robust03`` -- the real Robust 2003 run ``SABIR03BASE`` (100 topics x 1,000 = 100,000
  lines) with its qrels (128,796 judgments).
  Commands: ``trec_eval -m ndcg_cut.10`` (the floor), ``evalkit eval -m ndcg_cut.10``,
  a pytrec_eval script (read both files with ``parse_qrel``/``parse_run``, evaluate,
  print the mean), ``ir_measures QRELS RUN nDCG@10`` (its command line), on
  ``robust03`` a ranx script (left out on ``dl20``: numba compiles ranx's kernels in
  every process, about 20 s here) (``Qrels.from_file``, ``Run.from_file``, ``evaluate(..., "ndcg@10",
  make_comparable=True)``: ranx refuses runs with unjudged topics otherwise), and
  ``python -c "import numpy"``.
* ``startup``: :func:`startup.commands` (``python -c pass``, ``import numpy``,
  ``import evalkit``, ``evalkit --help``, ``evalkit eval`` on the quick-start files)
  plus trec_eval, the pytrec_eval script and the ir_measures command line on the same
  quick-start files (40 lines, 5 topics).
* ``many``: the 17 Robust 2003 runs x 4 flavours (``ndcg_cut`` at 10 and 100, ``ndcg``
  without cutoff, and ``ndcg_cut.10`` with exponential gain, i.e. qrels grades mapped
  ``g -> 2^g - 1``):
  ``evalkit run`` on a generated config without statistics (``report: {sensitivity:
  false}``, no output files) against a pytrec_eval script doing the same (one
  ``RelevanceEvaluator`` for the three linear-gain measures, one on the gain-mapped
  qrels, means printed per run and measure) and 17 x 2 trec_eval processes (a shell
  loop: the floor); then ``evalkit run`` with a paired t-test against the baseline
  ``SABIR03BASE`` (no correction) against ranx's ``compare`` (Student's t, the four
  metrics ``ndcg@10``, ``ndcg@100``, ``ndcg``, ``ndcg_burges@10``; ranx compares every
  pair of runs, 136 pairs, not just the 16 against the baseline: that is what its
  ``compare`` does).

The Robust 2003 runs are gzip files upstream (``../shared/data/trectools_robust03/runs``);
trec_eval does not read gzip, so every tool reads the same decompressed copies written
under ``--data`` (default ``benchmarks/data/small``, git-ignored).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "data"
ROBUST = SHARED / "trectools_robust03"
DL20_QRELS = SHARED / "anserini_tools_qrels" / "qrels.dl20-passage.txt"
DATA = HERE / "data" / "small"
BASELINE = "SABIR03BASE"
SEED = 20200101

sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))

from run import _whole_env, machine  # noqa: E402
from startup import commands as startup_commands  # noqa: E402


def trec_eval() -> str:
    """trec_eval 10.0 built from ``../shared/references/trec_eval`` (tests/reference_programs.py)."""
    from reference_programs import trec_eval_binary

    return str(trec_eval_binary("10.0"))


# --------------------------------------------------------------------------- data

def write_dl20_like(out: Path, seed: int = SEED) -> tuple[Path, Path]:
    """A run shaped like TREC DL 2020 passage runs: 199 topics x 100 passages (19,900
    lines, the size of ``BIT.UA-run1``), scores with 4 decimals decreasing with rank.

    The 54 judged topics are those of the real ``qrels.dl20-passage.txt`` (returned as
    the qrels path); for each, up to 60 of its judged passages are retrieved at ranks
    biased to the top (relevant ones higher), the rest are random passage ids of the
    8.8 M-passage MS MARCO corpus; 145 further topics are unjudged (as in DL 2020, where
    runs answer 200 queries and 54 were judged). Deterministic (``numpy`` generator,
    ``seed``).
    """
    import numpy as np

    out.mkdir(parents=True, exist_ok=True)
    run_path = out / "dl20_like.run"
    if run_path.exists():
        return run_path, DL20_QRELS
    rng = np.random.default_rng(seed)
    judged: dict[str, list[tuple[str, int]]] = {}
    for line in DL20_QRELS.read_text().splitlines():
        qid, _, docno, grade = line.split()
        judged.setdefault(qid, []).append((docno, int(grade)))
    qids = sorted(judged) + [str(1_100_000 + i) for i in range(199 - len(judged))]
    lines = []
    for qid in qids:
        docs = judged.get(qid, [])
        seen = {d for d, _ in docs}
        if docs:
            pick = rng.permutation(len(docs))[:60]
            # relevant documents tend to rank higher
            key = rng.random(len(pick)) / (1.0 + np.array([docs[i][1] for i in pick]))
            chosen = [docs[pick[i]][0] for i in np.argsort(key)]
        else:
            chosen = []
        slots = np.sort(rng.choice(100, size=len(chosen), replace=False)) if chosen else []
        ranking: list[str | None] = [None] * 100
        for s, d in zip(slots, chosen):
            ranking[s] = d
        for r in range(100):
            while ranking[r] is None:
                d = str(int(rng.integers(0, 8_841_823)))
                if d not in seen:
                    seen.add(d)
                    ranking[r] = d
        score = np.round(30.0 - np.cumsum(rng.exponential(0.05, size=100)), 4)
        lines.extend(f"{qid} Q0 {d} {r + 1} {score[r]:.4f} dl20like\n" for r, d in enumerate(ranking))
    tmp = run_path.with_suffix(".tmp")
    tmp.write_text("".join(lines))
    tmp.replace(run_path)
    return run_path, DL20_QRELS


def robust_files(out: Path) -> tuple[Path, list[Path], Path]:
    """``(qrels, runs, exp2 qrels)``: the 17 Robust 2003 runs decompressed under ``out``
    (``<runid>.run``) and the qrels with grades mapped ``g -> 2^g - 1`` (for trec_eval
    and pytrec_eval, which have no exponential gain for ``ndcg_cut``)."""
    rdir = out / "robust03"
    rdir.mkdir(parents=True, exist_ok=True)
    runs = []
    for gz in sorted((ROBUST / "runs").glob("input.*.gz")):
        target = rdir / (gz.name[len("input."):-len(".gz")] + ".run")
        if not target.exists():
            tmp = target.with_suffix(".tmp")
            with gzip.open(gz, "rb") as f:
                tmp.write_bytes(f.read())
            tmp.replace(target)
        runs.append(target)
    qrels = ROBUST / "robust03_qrels.txt"
    exp2 = rdir / "qrels_exp2.txt"
    if not exp2.exists():
        mapped = []
        for line in qrels.read_text().splitlines():
            q, it, d, g = line.split()
            mapped.append(f"{q} {it} {d} {2 ** int(g) - 1}\n")
        exp2.write_text("".join(mapped))
    return qrels, runs, exp2


# --------------------------------------------------------------------------- peer scripts

PYTREC_ONE = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
values = [m["ndcg_cut_10"] for m in pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run).values()]
print("ndcg_cut_10", "all", sum(values) / len(values))
"""

RANX_ONE = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
print("ndcg@10", evaluate(qrels, run, "ndcg@10", make_comparable=True))
"""

PYTREC_MANY = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    qrels_exp2 = pytrec_eval.parse_qrel(f)
linear = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10,100", "ndcg"})
exp2 = pytrec_eval.RelevanceEvaluator(qrels_exp2, {"ndcg_cut.10"})
for path in sys.argv[3:]:
    with open(path) as f:
        run = pytrec_eval.parse_run(f)
    a, b = linear.evaluate(run), exp2.evaluate(run)
    n = len(a)
    print(path, *(round(sum(m[k] for m in a.values()) / n, 4) for k in ("ndcg_cut_10", "ndcg_cut_100", "ndcg")),
          round(sum(m["ndcg_cut_10"] for m in b.values()) / n, 4))
"""

RANX_COMPARE = """
import sys
from ranx import Qrels, Run, compare
qrels = Qrels.from_file(sys.argv[1], kind="trec")
runs = [Run.from_file(p, kind="trec") for p in sys.argv[2:]]
report = compare(qrels, runs, metrics=["ndcg@10", "ndcg@100", "ndcg", "ndcg_burges@10"], stat_test="student",
                 make_comparable=True)
print(report)
"""


def many_config(out: Path, qrels: Path, runs: list[Path], stats: bool) -> Path:
    """The ``evalkit run`` config of the ``many`` workload (JSON, which is YAML)."""
    cfg = {
        "title": "Robust 2003: 17 runs x 4 flavours (benchmark)",
        "qrels": str(qrels),
        "runs": [{"name": p.stem, "path": str(p)} for p in runs],
        "flavours": {
            "cut10": "trec_eval.ndcg_cut@10",
            "cut100": "trec_eval.ndcg_cut@100",
            "full": "trec_eval.ndcg",
            "exp2": "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@10",
        },
        "report": {"sensitivity": False},
    }
    if stats:
        cfg["baseline"] = BASELINE
        cfg["statistics"] = {"test": "t", "alpha": 0.05, "correction": "none"}
    path = out / ("many_stats.yaml" if stats else "many.yaml")
    path.write_text(json.dumps(cfg, indent=1))
    return path


# --------------------------------------------------------------------------- tables

def _py() -> str:
    return sys.executable


def _ir_measures() -> list[str]:
    return [_py(), "-m", "ir_measures"]


def typical_tables(data: Path, ranx: bool = True) -> dict[str, dict[str, list[str]]]:
    te = trec_eval()
    run20, qrels20 = write_dl20_like(data)
    qrels_r, runs_r, _ = robust_files(data)
    run_r = next(p for p in runs_r if p.stem == BASELINE)
    tables = {}
    for name, (qrels, run) in {"typical dl20 (19,900 lines)": (qrels20, run20),
                               "typical robust03 (100,000 lines)": (qrels_r, run_r)}.items():
        tables[name] = {
            "trec_eval": [te, "-m", "ndcg_cut.10", str(qrels), str(run)],
            "evalkit": [_py(), "-m", "evalkit", "eval", str(qrels), str(run), "-m", "ndcg_cut.10"],
            "pytrec_eval": [_py(), "-c", PYTREC_ONE, str(qrels), str(run)],
            "ir_measures": _ir_measures() + [str(qrels), str(run), "nDCG@10"],
            "numpy": [_py(), "-c", "import numpy"],
        }
        if ranx and "robust03" in name:
            tables[name]["ranx"] = [_py(), "-c", RANX_ONE, str(qrels), str(run)]
    return tables


def startup_table() -> dict[str, dict[str, list[str]]]:
    qs = REPO / "examples" / "quickstart"
    qrels, run = str(qs / "qrels.txt"), str(qs / "system_a.run")
    cmds = {"trec_eval": [trec_eval(), "-m", "ndcg_cut.10", qrels, run]}
    for name, args in startup_commands(REPO).items():
        cmds["evalkit " + name if name in ("import", "help", "eval") else name] = [_py(), *args]
    cmds["pytrec_eval"] = [_py(), "-c", PYTREC_ONE, qrels, run]
    cmds["ir_measures"] = _ir_measures() + [qrels, run, "nDCG@10"]
    return {"startup (quick start, 40 lines)": cmds}


def many_tables(data: Path) -> dict[str, dict[str, list[str]]]:
    te = trec_eval()
    qrels, runs, exp2 = robust_files(data)
    loop = " ".join(
        f"{shlex.quote(te)} -m ndcg_cut.10,100 -m ndcg {shlex.quote(str(qrels))} {shlex.quote(str(r))} >/dev/null && "
        f"{shlex.quote(te)} -m ndcg_cut.10 {shlex.quote(str(exp2))} {shlex.quote(str(r))} >/dev/null &&"
        for r in runs) + " true"
    paths = [str(r) for r in runs]
    return {
        "many systems, no statistics (17 runs x 4 flavours)": {
            "trec_eval": ["sh", "-c", loop],
            "evalkit": [_py(), "-m", "evalkit", "run", str(many_config(data, qrels, runs, stats=False))],
            "pytrec_eval": [_py(), "-c", PYTREC_MANY, str(qrels), str(exp2), *paths],
            "numpy": [_py(), "-c", "import numpy"],
        },
        "many systems, paired t-test vs SABIR03BASE": {
            "trec_eval": ["sh", "-c", loop],
            "evalkit": [_py(), "-m", "evalkit", "run", str(many_config(data, qrels, runs, stats=True))],
            "ranx compare": [_py(), "-c", RANX_COMPARE, str(qrels), *paths],
            "numpy": [_py(), "-c", "import numpy"],
        },
    }


def timed(argv: list[str]) -> tuple[float, float]:
    """``(wall seconds, CPU seconds)`` of one process run from the checkout's root (as
    :func:`run._timed`; the CPU time is the child's user + system time from ``wait4``,
    the steadier of the two on a loaded machine for single-threaded commands)."""
    import tempfile
    import time

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=REPO, env=_whole_env(REPO))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise RuntimeError(f"{argv[:4]} failed:\n{err.read().decode(errors='replace')[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(cmds: dict[str, list[str]], repeat: int) -> dict[str, dict[str, list[float]]]:
    """``{"wall": {tool: [seconds per round]}, "cpu": {...}}``: one warm-up each, then
    ``repeat`` rotated rounds."""
    names = list(cmds)
    for name in names:  # warm-up: file cache, bytecode, numba's cache, evalkit's entry-point cache
        timed(cmds[name])
    times: dict[str, dict[str, list[float]]] = {"wall": {n: [] for n in names}, "cpu": {n: [] for n in names}}
    for r in range(repeat):
        for name in names[r % len(names):] + names[: r % len(names)]:
            print(f"  round {r + 1} {name} ...", file=sys.stderr, flush=True)
            wall, cpu = timed(cmds[name])
            times["wall"][name].append(wall)
            times["cpu"][name].append(cpu)
    return times


def print_table(title: str, times: dict[str, dict[str, list[float]]]) -> None:
    print(f"\n### {title}\n")
    print("| command | median s | x evalkit | x trec_eval | x import numpy | CPU s | CPU x import numpy | all s |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    med = {n: statistics.median(t) for n, t in times["wall"].items()}
    cpu = {n: statistics.median(t) for n, t in times["cpu"].items()}
    ek = med.get("evalkit") or med.get("evalkit eval")
    te, np_, np_cpu = med["trec_eval"], med.get("numpy"), cpu.get("numpy")
    for n, m in med.items():
        ratio_np = f"{m / np_:.2f}" if np_ else ""
        ratio_cpu = f"{cpu[n] / np_cpu:.2f}" if np_cpu else ""
        print(f"| {n} | {m:.3f} | {m / ek:.2f} | {m / te:.1f} | {ratio_np} | {cpu[n]:.3f} | {ratio_cpu} | "
              + " ".join(f"{t:.2f}" for t in times["wall"][n]) + " |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", nargs="+", default=["typical", "startup", "many"],
                    choices=["typical", "startup", "many"])
    ap.add_argument("--repeat", type=int, default=5, help="rounds (medians of these; default 5)")
    ap.add_argument("--data", type=Path, default=DATA, help="where generated/decompressed files go")
    ap.add_argument("--json", type=Path, default=None, help="also write the raw times here")
    args = ap.parse_args(argv)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "evalkit")],
                   env=_whole_env(REPO), check=True, stdout=subprocess.DEVNULL)
    tables: dict[str, dict[str, list[str]]] = {}
    for wl in args.workloads:
        tables.update({"typical": typical_tables, "startup": lambda _d: startup_table(),
                       "many": many_tables}[wl](args.data))
    results = {}
    for title, cmds in tables.items():
        print(f"{title} ...", file=sys.stderr, flush=True)
        results[title] = measure(cmds, args.repeat)
    print(f"machine: {machine()}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for title, times in results.items():
        print_table(title, times)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "times": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
