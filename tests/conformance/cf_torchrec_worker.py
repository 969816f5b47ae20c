"""TorchRec's ``NDCGMetric`` in a process of its own, for :func:`cf_refs.torchrec`.

TorchRec 1.8.0 pins ``torchmetrics==1.0.3`` (installed in the ``torchrec`` layer's environment); with torchmetrics 1.9.0 (the
reference of the ``torchmetrics.*`` rows, already imported in the suite's process) its
``NDCGMetric.compute()`` fails in torchmetrics' ``Metric.compute`` wrapper
(``_squeeze_if_scalar`` -> ``apply_to_collection``: ``ValueError: A frozen dataclass was
passed to `apply_to_collection` but this is not allowed.``, on TorchRec's
``MetricComputationReport``). So TorchRec's rows run in their own layer, where
``pip install torchrec==1.8.0`` brought torchmetrics 1.0.3 as a TorchRec user gets it, and
:func:`cf_refs.torchrec` runs this file in a process of its own (TorchRec's import takes seconds).

Usage: ``python cf_torchrec_worker.py IN.npz OUT.npz``. ``IN`` holds, per job ``j``:
``p{j}`` predictions (``float32``, tasks x examples), ``l{j}`` labels (``float32``, same
shape), ``s{j}`` session ids (``int64``, same shape, every row equal: TorchRec asserts it),
``e{j}`` (``exponential_gain``, 0 or 1) and ``b{j}``, the columns where the examples split
into consecutive batches. Job ``j`` goes to one ``NDCGMetric`` (world size 1,
``RecComputeMode.FUSED_TASKS_COMPUTATION``: one task per row, every row computed on its own
along the last dimension, torchrec/metrics/ndcg.py:122-278), one ``update(predictions=,
labels=, weights=ones, required_inputs={"session_id": ...})`` per batch, then ``compute()``,
as ``RecMetricModule`` calls a metric over an epoch's batches; ``OUT`` holds ``v{j}``
(``float64``, one value per row: the task's ``lifetime_ndcg``, the mean over every updated
session of ``1 - NDCG``) and ``versions`` (torchrec, torchmetrics, fbgemm_gpu).
"""

from __future__ import annotations

import sys

import numpy as np
import torch
from torchrec.metrics.metrics_config import RecComputeMode, RecTaskInfo
from torchrec.metrics.ndcg import NDCGMetric

#: rows per NDCGMetric call: _get_ndcg_states expands to (tasks, sessions, examples)
CELLS = 4_000_000


def ndcg_rows(predictions, labels, session_ids, exponential_gain: bool, bounds) -> np.ndarray:
    """One ``NDCGMetric`` per chunk of rows, one ``update`` per batch (the columns between
    consecutive ``bounds``); each row's ``lifetime_ndcg``."""
    n_rows, width = predictions.shape
    spans = list(zip(bounds[:-1], bounds[1:]))
    cells = max((b - a) * len(np.unique(session_ids[0, a:b])) for a, b in spans)
    step = max(1, CELLS // cells)
    out = []
    for start in range(0, n_rows, step):
        stop = min(n_rows, start + step)
        tasks = [RecTaskInfo(name=f"row{i}") for i in range(stop - start)]
        metric = NDCGMetric(world_size=1, my_rank=0, batch_size=max(b - a for a, b in spans), tasks=tasks,
                            compute_mode=RecComputeMode.FUSED_TASKS_COMPUTATION, window_size=width,
                            exponential_gain=exponential_gain)
        for a, b in spans:
            p = torch.from_numpy(predictions[start:stop, a:b])
            metric.update(predictions=p, labels=torch.from_numpy(labels[start:stop, a:b]), weights=torch.ones_like(p),
                          required_inputs={"session_id": torch.from_numpy(session_ids[start:stop, a:b])})
        values = metric.compute()
        out.extend(float(values[f"ndcg-{t.name}|lifetime_ndcg"]) for t in tasks)
    return np.array(out, dtype=np.float64)


def main(src: str, dst: str) -> None:
    import fbgemm_gpu
    import torchmetrics
    import torchrec

    data = np.load(src)
    jobs = sorted(int(key[1:]) for key in data.files if key.startswith("p"))
    result = {f"v{j}": ndcg_rows(data[f"p{j}"], data[f"l{j}"], data[f"s{j}"], bool(data[f"e{j}"]),
                                     data[f"b{j}"]) for j in jobs}
    result["versions"] = np.array([torchrec.__version__, torchmetrics.__version__, fbgemm_gpu.__version__])
    np.savez(dst, **result)


if __name__ == "__main__":
    main(*sys.argv[1:3])
