"""The package-internal protocol between the data types and the engine.

:class:`evalkit.Qrels` and :class:`evalkit.Run` expose public columns (``qid``,
``docno``, ``grade``/``score``, ``line``) for users, and a few underscore methods
for the engine's join (:func:`evalkit.engine.problem.build_problem`): query codes,
the docno column as Arrow strings and hashes of ``(qid, docno)`` pairs. They are
not part of the public API or of the plugin contract (:mod:`evalkit.kernel`), but
they are a stable contract *inside* the package, written down here so that the
engine depends on this protocol rather than on :mod:`evalkit.data` (which keeps
``data`` and ``engine`` free of an import cycle), and so that another data source
(a Spark or Arrow table) can be joined by implementing it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from .pair_index import PairIndex

__all__ = ["JoinColumns", "QrelsColumns", "RunColumns"]


@runtime_checkable
class JoinColumns(Protocol):
    """Rows of ``(qid, docno, value)`` as the join reads them (``n`` rows)."""

    def __len__(self) -> int:
        """Number of rows ``n``."""

    def _qid_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, vocab)``: integer ``(n,)`` codes (``int32`` or ``int64``) and the
        sorted ``object`` ``(u,)`` vocabulary of query ids, ``vocab[codes] == qid``.
        Computed once, then cached."""

    def _docno_arrow(self) -> Any:
        """The docno column as an Arrow string array (``pa.Array`` or ``pa.ChunkedArray``),
        ``(n,)``, in row order; a column of fewer than
        :data:`evalkit.engine.factorize.PLAIN_MAX` rows may instead be an ``object``
        ndarray of ``str``, and a column a reader built from a file under
        ``evalkit.io.trec.CANONICAL_MAX_BYTES`` a :class:`evalkit.engine.factorize.Utf8Column`
        (the engine's string helpers take all three and give the same codes and hashes;
        the last two without importing pyarrow)."""

    def _pair_hashes(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """``uint64`` hashes of the ``(qid, docno)`` pairs of rows ``start:stop``;
        equal pairs hash equally in every object implementing the protocol
        (:func:`evalkit.engine.factorize.pair_hash`)."""

    def _pair_index(self) -> PairIndex:
        """The sorted index of the pair hashes
        (:class:`evalkit.engine.pair_index.PairIndex`; keys ``uint64`` ``(n,)``), so
        equal high bits find the candidate rows of a pair with one binary search.
        Computed once, then cached."""


@runtime_checkable
class QrelsColumns(JoinColumns, Protocol):
    """Judgments: :class:`JoinColumns` plus ``grade``, ``float64`` ``(n,)``."""

    grade: np.ndarray


@runtime_checkable
class RunColumns(JoinColumns, Protocol):
    """A run: :class:`JoinColumns` plus ``score``, ``float64`` ``(n,)``. It may also
    have ``rank``, the ``int32`` ``(n,)`` rank column or ``None`` (read by
    ``getattr``: only tie policies that ``needs_rank`` use it)."""

    score: np.ndarray
