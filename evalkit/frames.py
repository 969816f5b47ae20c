"""pandas adapters: qrels and runs from DataFrames, results to a long DataFrame.

pandas is optional (the ``pandas`` extra) and imported only here, when one of these
functions runs.

Column names default to evalkit's terms and fall back to the names ir_measures and
ranx use, so their DataFrames can be passed as they are:

=========  ==========================  ======================  ===================
field      evalkit                     ir_measures             ranx
=========  ==========================  ======================  ===================
query      ``qid``                     ``query_id``            ``q_id``
document   ``docno``                   ``doc_id``              ``doc_id``
grade      ``grade``                   ``relevance``           ``score``
score      ``score``                   ``score``               ``score``
=========  ==========================  ======================  ===================

(ir_measures ``util.py`` ``Qrel``/``ScoredDoc`` namedtuples; ranx
``ranx/data_structures/qrels.py`` and ``run.py`` ``from_df(q_id_col, doc_id_col,
score_col)``.) Query ids and docnos are converted to ``str``; grades and scores to
``float64``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .errors import InputFormatError

#: Candidate column names per field, in the order they are looked for.
DEFAULT_COLUMNS = {
    "qid": ("qid", "query_id", "q_id"),
    "docno": ("docno", "doc_id"),
    "grade": ("grade", "relevance", "score"),
    "score": ("score",),
}

#: Columns of :func:`results_to_df`.
RESULT_COLUMNS = ("system", "qid", "flavour", "value")


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("this needs pandas: pip install 'evalkit-ndcg[pandas]'") from None
    return pd


def _column(df: Any, field: str, given: str | None, source: str) -> str:
    """The column of ``df`` that holds ``field``: ``given``, or the first of
    :data:`DEFAULT_COLUMNS` present. :raises InputFormatError: none found."""
    names = [str(c) for c in df.columns]
    if given is not None:
        if given not in df.columns:
            raise InputFormatError(source, None, field, f"no column {given!r} (columns: {', '.join(names)})")
        return given
    for name in DEFAULT_COLUMNS[field]:
        if name in df.columns:
            return name
    raise InputFormatError(source, None, field,
                           f"no {field} column: name it with {field}=... (looked for "
                           f"{', '.join(DEFAULT_COLUMNS[field])}; columns: {', '.join(names)})")


def _strings(series: Any) -> np.ndarray:
    if series.isna().any():
        raise ValueError("missing value")
    out = np.empty(len(series), dtype=object)
    out[:] = series.astype(str).tolist()
    return out


def _show(value: Any) -> str:
    """A cell for an error message: strings quoted, numbers and NaN plain."""
    return repr(value) if isinstance(value, str) else str(value)


def _numbers(series: Any, source: str, field: str) -> np.ndarray:
    pd = _pandas()
    if series.dtype.kind == "b":  # True is not a score or a grade (from_columns refuses it too)
        raise InputFormatError(source, None, field, f"row 0 (index {_show(series.index[0])}): "
                                                   f"{series.iloc[0]} is a bool, not a number")
    values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = int(bad[0])
        raise InputFormatError(source, None, field,
                               f"row {i} (index {_show(series.index[i])}): {_show(series.iloc[i])} is not a finite number")
    return values


def _string_column(df: Any, col: str, source: str, field: str) -> np.ndarray:
    try:
        return _strings(df[col])
    except ValueError:
        i = int(np.flatnonzero(df[col].isna().to_numpy())[0])
        raise InputFormatError(source, None, field, f"row {i} (index {_show(df.index[i])}): missing value") from None


def columns_from_df(df: Any, number_field: str, *, qid: str | None = None, docno: str | None = None,
                    number: str | None = None,
                    source: str = "<DataFrame>") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``(qid, docno, grade or score)`` columns of a DataFrame, for
    :meth:`evalkit.Qrels.from_df` (``number_field="grade"``) and
    :meth:`evalkit.Run.from_df` (``number_field="score"``): two ``object`` arrays of
    ``str`` and a ``float64`` array, ``(n,)`` each.

    :param df: a :class:`pandas.DataFrame` (other columns, such as a rank, are ignored).
    :param qid, docno, number: column names (default: see the module docstring).
    :raises InputFormatError: a column is missing, a number is not finite, or a query
        id or docno is missing (naming the row and its index).
    """
    cq, cd, cn = (_column(df, f, g, source) for f, g in (("qid", qid), ("docno", docno), (number_field, number)))
    return (_string_column(df, cq, source, "qid"), _string_column(df, cd, source, "docno"),
            _numbers(df[cn], source, number_field))


def results_to_df(results: Any, columns: Sequence[str] = RESULT_COLUMNS) -> Any:
    """Long DataFrame of :class:`~evalkit.results.Results`: one row per (system, flavour,
    included query), columns ``system``, ``qid``, ``flavour`` (the label), ``value``
    (``float64``); queries a convention leaves out (``NaN``) have no row. Rows are
    system-major, then flavour, then query in :attr:`Results.qids` order.

    :param columns: names for the four columns, in that order (e.g.
        ``("run", "query_id", "measure", "value")`` for ir_measures' names).
    :raises ValueError: ``columns`` does not have four names.
    """
    pd = _pandas()
    if len(columns) != 4:
        raise ValueError(f"columns must name 4 columns (system, qid, flavour, value); got {list(columns)}")
    values = np.asarray(results.values, dtype=np.float64)
    s, f, q = values.shape
    keep = ~np.isnan(values.reshape(-1))
    system = np.repeat(np.asarray(results.systems, dtype=object), f * q)[keep]
    flavour = np.tile(np.repeat(np.asarray(results.labels, dtype=object), q), s)[keep]
    qids = np.tile(np.asarray(results.qids, dtype=object), s * f)[keep]
    return pd.DataFrame({columns[0]: system, columns[1]: qids, columns[2]: flavour,
                         columns[3]: values.reshape(-1)[keep]})
