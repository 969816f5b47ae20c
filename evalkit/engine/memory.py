"""Large temporary arrays without transparent-huge-page stalls.

NumPy advises the kernel to back every array of 4 MiB or more with transparent huge
pages (``madvise(MADV_HUGEPAGE)``). Where the kernel's THP ``defrag`` setting is
``madvise`` (a common default), each such allocation may then stall on direct memory
compaction. Reading and evaluating a 10-million-line run allocates and frees a few
hundred such arrays; on the benchmark machine (``benchmarks/README.md``) the advice
cost about 1.7 s of a 5 s job. :func:`no_hugepage_advice` turns the advice off while
evalkit works and restores the previous setting afterwards.

The process-wide switch is NumPy's own (``NUMPY_MADVISE_HUGEPAGE`` at import time,
``numpy._core.multiarray._set_madvise_hugepage`` at run time); if the user set the
environment variable, evalkit leaves the setting alone.
"""

from __future__ import annotations

import functools
import os
from contextlib import contextmanager

import numpy as np
from typing import Any


def _setter() -> Any:
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return None  # the user chose; respect it
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    multiarray = getattr(core, "multiarray", None)
    return getattr(multiarray, "_set_madvise_hugepage", None)


@contextmanager
def no_hugepage_advice() -> Any:
    """Within the block, NumPy does not advise huge pages for new arrays."""
    setter = _setter()
    if setter is None:
        yield
        return
    previous = setter(False)
    try:
        yield
    finally:
        setter(previous)


def without_hugepage_advice(fn: Any) -> Any:
    """Decorator form of :func:`no_hugepage_advice`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with no_hugepage_advice():
            return fn(*args, **kwargs)

    return wrapper
