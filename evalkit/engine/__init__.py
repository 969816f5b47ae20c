"""The evaluation engine: joins runs with qrels, sorts each run once per tie policy
and runs metric kernels vectorised over all queries."""

from .evaluate import evaluate

__all__ = ["evaluate"]
