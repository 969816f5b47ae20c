"""The evaluation engine: joins runs with qrels, sorts each run once per tie policy
and runs metric kernels vectorised over all queries.

Its modules are internal; plugins use :mod:`evalkit.kernel`. ``evaluate`` is
imported on first use (PEP 562), so importing a leaf such as
``evalkit.engine.factorize`` does not load the whole engine.
"""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

__all__ = ["evaluate"]


def __getattr__(name: str) -> Any:
    if name == "evaluate":
        from .evaluate import evaluate

        return evaluate
    raise AttributeError(f"module 'evalkit.engine' has no attribute {name!r}")


if TYPE_CHECKING:  # pragma: no cover
    from .evaluate import evaluate
