"""evalkit inside the IR ecosystem (issue 28).

* :mod:`evalkit.ecosystem.ir_measures`: any flavour or preset as an ir_measures measure,
  usable in ``ir_measures.calc_aggregate`` / ``iter_calc`` and PyTerrier's ``pt.Experiment``;
* :mod:`evalkit.ecosystem.ir_datasets`: qrels and subtopic qrels by ir_datasets id
  (``irds:DATASET_ID``) wherever a qrels file is accepted, and the dataset's official measures;
* :mod:`evalkit.ecosystem.ranx`: :class:`~evalkit.Qrels` / :class:`~evalkit.Run` /
  :class:`~evalkit.Results` to and from ranx ``Qrels`` / ``Run``, and a ranx ``Report`` of
  evalkit's values.

Each integration imports its library only when one of its functions runs (the ``ir_measures``,
``irds`` and ``ranx`` extras: ``pip install "evalkit-ndcg[ir_measures,irds,ranx]"``), so
``import evalkit`` and ``evalkit eval`` on files never load them. See ``docs/ecosystem.md``.
"""

from __future__ import annotations

from ..errors import EvalkitError
from typing import Any


class MissingDependencyError(EvalkitError, ImportError):
    """An integration's library is not installed; the message names the extra to install."""


def require(module: str, extra: str) -> Any:
    """Import ``module`` or raise :class:`MissingDependencyError` naming ``extra``."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(f"this needs {module} ({exc}): pip install "
                                     f"'evalkit-ndcg[{extra}]'") from None
