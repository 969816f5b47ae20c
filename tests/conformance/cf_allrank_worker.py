"""allRank 1.4.3's ``ndcg`` in a process of its own, for :func:`cf_refs.allrank`.

allRank 1.4.3 pins ``torch<=1.8.0`` (and torchvision 0.9.0, gcsfs 0.6.2), and torch 1.8.0 has
wheels for CPython 3.6 to 3.9 only: so allRank runs in a virtualenv of its own on Python 3.8,
made by the ``allrank`` test session (``noxfile.py``: ``pip install allrank==1.4.3``, every
pin its own), whose interpreter ``$EVALKIT_ALLRANK_PYTHON`` runs this file. Nothing is
patched or stood in for: ``import allrank.models.metrics`` imports torchvision, gcsfs and
``pkg_resources`` as allRank's users have them.

Usage: ``python cf_allrank_worker.py IN.npz OUT.npz``. ``IN``: ``labels`` and ``scores``
(float64, slates x width, short slates padded with the label -1), ``pad`` (bool, the padded
cells), ``k`` (-1: the whole slate, ``ats=None``), ``seeds``. Per seed ``0..seeds-1`` every
slate is permuted at random (``numpy.random.default_rng(seed)``, padding kept last) and
``allrank.models.metrics.ndcg(y_pred, y_true, ats=[k])`` computed on float32 tensors.
``OUT``: ``draws`` (float64, seeds x slates), ``padded_y_value`` and ``versions`` (allrank,
torch, numpy).
"""

import sys
from importlib import metadata

import numpy as np
import torch
from allrank.models import metrics


def main(src, dst):
    data = np.load(src)
    labels, scores, pad = data["labels"], data["scores"], data["pad"]
    k, seeds = int(data["k"]), int(data["seeds"])
    draws = []
    for seed in range(seeds):
        keys = np.random.default_rng(seed).random(labels.shape)
        keys[pad] = 2.0  # padding stays last
        order = np.argsort(keys, axis=1)
        y_true = torch.tensor(np.take_along_axis(labels, order, axis=1), dtype=torch.float32)
        y_pred = torch.tensor(np.take_along_axis(scores, order, axis=1), dtype=torch.float32)
        out = metrics.ndcg(y_pred, y_true, ats=None if k < 0 else [k])
        draws.append(out[:, 0].to(torch.float64).numpy())
    versions = np.array([metadata.version(d) for d in ("allrank", "torch", "numpy")])
    np.savez(dst, draws=np.array(draws), padded_y_value=np.array(float(metrics.PADDED_Y_VALUE)), versions=versions)


if __name__ == "__main__":
    main(*sys.argv[1:3])
