"""RecBole 1.2.1's evaluation in a process of its own, for :func:`cf_refs.recbole`.

RecBole 1.2.1's ``NDCG.metric_info`` (recbole/evaluator/metrics.py:188, :194) calls
``np.zeros_like(..., dtype=np.float)``, an alias numpy removed in 1.24, and evalkit needs
numpy >= 1.24: so RecBole runs in a virtualenv of its own, made by the ``recbole`` test
session (``noxfile.py``: ``pip install torch==2.13.0 recbole==1.2.1 "numpy<1.24"``, RecBole
with its own pins: ray 2.6.3, colorlog 4.7.2, colorama 0.4.4), whose interpreter
``$EVALKIT_RECBOLE_PYTHON`` runs this file. Nothing is patched.

Usage: ``python cf_recbole_worker.py IN.json OUT.json``. ``IN``: ``{"jobs": [{"rows": [[score,
...], ...], "positives": [[item column, ...], ...], "k": k}, ...]}`` (float32 score rows, one
per test user; ``-Infinity`` allowed). ``OUT``: ``{"values": [ndcg@k per job], "versions":
{"recbole": ..., "numpy": ..., "torch": ...}}``: per job, RecBole's own evaluation path on the
score rows, ``Collector.eval_batch_collect`` (``torch.topk`` of each row, the positive items
gathered) then ``Evaluator(config).evaluate(...)['ndcg@k']`` (the mean over the rows, rounded
to ``metric_decimal_place``, set to 15).
"""

import json
import sys
from importlib import metadata

import numpy as np
import torch
from recbole.evaluator import Collector, Evaluator


def ndcg(rows, positives, k):
    config = {"metrics": ["NDCG"], "topk": [k], "metric_decimal_place": 15, "device": torch.device("cpu"),
              "eval_args": {"mode": {"valid": "full", "test": "full"}}}
    scores = torch.tensor(np.array(rows), dtype=torch.float32)
    pos_u = torch.tensor([u for u, items in enumerate(positives) for _ in items], dtype=torch.long)
    pos_i = torch.tensor([i for items in positives for i in items], dtype=torch.long)
    collector = Collector(config)
    collector.eval_batch_collect(scores, None, pos_u, pos_i)
    return float(Evaluator(config).evaluate(collector.get_data_struct())[f"ndcg@{k}"])


def main(src, dst):
    with open(src) as f:
        jobs = json.load(f)["jobs"]
    values = [ndcg(j["rows"], j["positives"], j["k"]) for j in jobs]
    versions = {d: metadata.version(d) for d in ("recbole", "numpy", "torch")}
    with open(dst, "w") as f:
        json.dump({"values": values, "versions": versions}, f)


if __name__ == "__main__":
    main(*sys.argv[1:3])
