"""Start-up cost of the ``evalkit`` command: whole processes, timed from outside.

    python benchmarks/startup.py                 # 15 alternations
    python benchmarks/startup.py --repeat 31 --json startup.json
    python benchmarks/startup.py --checkout ../main     # another checkout's evalkit

Commands (each a fresh ``python`` process, the evalkit of this checkout first on
``sys.path``):

* ``numpy``: ``python -c "import numpy"`` -- the reference (issue 13's target: the two
  commands below within 2x of it);
* ``python``: ``python -c "pass"`` -- the interpreter alone;
* ``help``: ``python -m evalkit --help``;
* ``eval``: ``python -m evalkit eval`` on the bundled quick-start files (5 topics, 40
  lines) with ``-m trec_eval.ndcg_cut@10``;
* ``import``: ``python -c "import evalkit"``.

The commands are run in alternation (one of each per round, the order rotated each
round) so that load changes on a shared machine hit every command alike; the table shows
each command's median wall time and its ratio to the ``numpy`` median. The package's
bytecode is compiled first and the processes may write bytecode
(``PYTHONDONTWRITEBYTECODE`` is removed from their environment), as for an installed
package; otherwise every start would compile evalkit's sources.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REFERENCE = "numpy"


def commands(repo: Path) -> dict[str, list[str]]:
    qs = repo / "examples" / "quickstart"
    return {
        "python": ["-c", "pass"],
        "numpy": ["-c", "import numpy"],
        "import": ["-c", "import evalkit"],
        "help": ["-m", "evalkit", "--help"],
        "eval": ["-m", "evalkit", "eval", str(qs / "qrels.txt"), str(qs / "system_a.run"),
                 "-m", "trec_eval.ndcg_cut@10"],
    }


def _env(repo: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(repo), env.get("PYTHONPATH", "")) if p)
    return env


def _time(args: list[str], env: dict[str, str], repo: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], env=env, cwd=repo, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed


def measure(repeat: int, repo: Path = REPO) -> dict[str, list[float]]:
    env = _env(repo)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(repo / "evalkit")], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    cmds = commands(repo)
    names = list(cmds)
    for name in names:  # warm-up: OS file cache, bytecode
        _time(cmds[name], env, repo)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeat):
        order = names[r % len(names):] + names[: r % len(names)]
        for name in order:
            times[name].append(_time(cmds[name], env, repo))
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="alternations (default 15)")
    parser.add_argument("--json", metavar="FILE", help="also write the raw times")
    parser.add_argument("--checkout", metavar="DIR", type=Path, default=REPO,
                        help="the checkout whose evalkit is timed (default: this one)")
    args = parser.parse_args(argv)
    times = measure(args.repeat, args.checkout.resolve())
    medians = {name: statistics.median(t) for name, t in times.items()}
    ref = medians[REFERENCE]
    print(f"{'command':<8} {'median s':>9} {'x numpy':>8}   ({args.repeat} alternations, {args.checkout})")
    for name, m in medians.items():
        print(f"{name:<8} {m:>9.3f} {m / ref:>8.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"times": times, "medians": medians}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
