"""Columnar containers for qrels, subtopic qrels and runs.

All three hold one row per line of their TREC file, as NumPy columns of equal
length ``n``:

* ``qid``, ``docno``: ``object`` arrays of ``str``;
* ``grade`` (qrels): ``float64`` relevance grades (negative grades are kept; they
  count as judged non-relevant with gain 0, as trec_eval treats them);
* ``score`` (runs): ``float64`` retrieval scores, higher is better;
* ``line``: ``int64`` 1-based line numbers in the source file (for error messages).

They are plain values: evaluation never mutates them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from .errors import InputFormatError


def _obj(values: Iterable[Any]) -> np.ndarray:
    arr = np.empty(len(values), dtype=object) if hasattr(values, "__len__") else None
    if arr is None:
        values = list(values)
        arr = np.empty(len(values), dtype=object)
    arr[:] = [str(v) for v in values]
    return arr


def _floats(values: Iterable[Any], source: str, field_name: str) -> np.ndarray:
    out = np.asarray(list(values) if not isinstance(values, np.ndarray) else values)
    try:
        out = out.astype(np.float64)
    except (TypeError, ValueError):
        for i, v in enumerate(out):
            try:
                float(v)
            except (TypeError, ValueError):
                raise InputFormatError(source, None, field_name, f"row {i + 1}: not a number: {v!r}") from None
        raise
    bad = ~np.isfinite(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputFormatError(source, None, field_name, f"row {i + 1}: not a finite number: {out[i]!r}")
    return out


def _check_unique(qid: np.ndarray, docno: np.ndarray, line: np.ndarray, source: str, what: str) -> None:
    """Raise if a (qid, docno) pair occurs twice; name both lines."""
    if len(qid) < 2:
        return
    from .engine.factorize import factorize

    (qc,), _ = factorize(qid)
    (dc,), vocab = factorize(docno)
    key = qc.astype(np.int64) * (len(vocab) + 1) + dc
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if dup.size:
        first, second = order[dup[0]], order[dup[0] + 1]
        raise InputFormatError(
            source,
            int(line[second]),
            "docno",
            f"duplicate {what} for query {qid[second]!r}, document {docno[second]!r} "
            f"(first seen at line {int(line[first])})",
        )


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments: ``(qid, docno) -> grade``. See module docstring for columns."""

    qid: np.ndarray
    docno: np.ndarray
    grade: np.ndarray
    line: np.ndarray
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.qid)

    @property
    def qids(self) -> np.ndarray:
        """Sorted unique query ids (``object`` array of ``str``)."""
        return np.unique(self.qid) if len(self.qid) else np.empty(0, dtype=object)

    @classmethod
    def from_columns(cls, qid, docno, grade, *, source: str = "<memory>", line=None) -> "Qrels":
        """Build from columns; raises :class:`InputFormatError` on a non-numeric grade
        or a duplicate ``(qid, docno)``."""
        qid, docno = _obj(qid), _obj(docno)
        grade = _floats(grade, source, "grade")
        if not (len(qid) == len(docno) == len(grade)):
            raise InputFormatError(source, None, None, "qid, docno and grade columns differ in length")
        line = np.arange(1, len(qid) + 1, dtype=np.int64) if line is None else np.asarray(line, np.int64)
        _check_unique(qid, docno, line, source, "judgment")
        return cls(qid, docno, grade, line, source)

    @classmethod
    def from_rows(cls, rows, *, source: str = "<memory>") -> "Qrels":
        """From ``{qid: {docno: grade}}`` (pytrec_eval/ranx style) or an iterable of
        ``(qid, docno, grade)`` tuples."""
        if isinstance(rows, Mapping):
            rows = [(q, d, g) for q, docs in rows.items() for d, g in docs.items()]
        rows = list(rows)
        cols = list(zip(*rows)) if rows else [(), (), ()]
        return cls.from_columns(*cols, source=source)

    def to_dict(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for q, d, g in zip(self.qid, self.docno, self.grade):
            out.setdefault(q, {})[d] = float(g)
        return out


@dataclass(frozen=True, eq=False)
class SubtopicQrels:
    """Subtopic (intent) judgments ``topic subtopic docno grade`` (ndeval format).

    :param weights: optional ``{(topic, subtopic): probability}``; intents of a topic
        without weights are equally likely.
    """

    qid: np.ndarray
    subtopic: np.ndarray
    docno: np.ndarray
    grade: np.ndarray
    line: np.ndarray
    source: str = "<memory>"
    weights: Mapping[tuple[str, str], float] | None = None

    def __len__(self) -> int:
        return len(self.qid)

    @classmethod
    def from_columns(cls, qid, subtopic, docno, grade, *, source="<memory>", line=None, weights=None):
        qid, subtopic, docno = _obj(qid), _obj(subtopic), _obj(docno)
        grade = _floats(grade, source, "grade")
        line = np.arange(1, len(qid) + 1, dtype=np.int64) if line is None else np.asarray(line, np.int64)
        pair = np.array([f"{q}\x1f{s}" for q, s in zip(qid, subtopic)], dtype=object)
        _check_unique(pair, docno, line, source, "subtopic judgment")
        return cls(qid, subtopic, docno, grade, line, source, weights)

    @classmethod
    def from_rows(cls, rows, *, source="<memory>", weights=None):
        """From ``(topic, subtopic, docno, grade)`` tuples."""
        rows = list(rows)
        cols = list(zip(*rows)) if rows else [(), (), (), ()]
        return cls.from_columns(*cols, source=source, weights=weights)

    def intent_qrels(self) -> tuple[Qrels, np.ndarray, np.ndarray]:
        """Qrels keyed by pseudo-query ``"topic\\x1fsubtopic"``, plus the topic and
        intent probability of each pseudo-query (sorted like ``Qrels.qids``)."""
        pair = np.array([f"{q}\x1f{s}" for q, s in zip(self.qid, self.subtopic)], dtype=object)
        qrels = Qrels(pair, self.docno, self.grade, self.line, self.source)
        pairs = qrels.qids
        topic = np.array([p.split("\x1f", 1)[0] for p in pairs], dtype=object)
        sub = [p.split("\x1f", 1)[1] for p in pairs]
        prob = np.empty(len(pairs), dtype=np.float64)
        weights = self.weights or {}
        for t in np.unique(topic) if len(topic) else []:
            idx = np.flatnonzero(topic == t)
            w = np.array([weights.get((t, sub[i]), np.nan) for i in idx])
            if np.isnan(w).all():
                w = np.full(len(idx), 1.0 / len(idx))
            elif np.isnan(w).any():
                raise InputFormatError(self.source, None, "weight", f"topic {t!r}: some intents have no weight")
            prob[idx] = w
        return qrels, topic, prob


@dataclass(frozen=True, eq=False)
class Run:
    """A system's ranked results. Ranks are derived from scores by the tie policy;
    the file's rank column is ignored, as trec_eval ignores it."""

    qid: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    line: np.ndarray
    name: str = "run"
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.qid)

    @property
    def qids(self) -> np.ndarray:
        return np.unique(self.qid) if len(self.qid) else np.empty(0, dtype=object)

    @classmethod
    def from_columns(cls, qid, docno, score, *, name="run", source="<memory>", line=None) -> "Run":
        """Build from columns; raises :class:`InputFormatError` on a non-finite score
        or a duplicate ``(qid, docno)`` (trec_eval refuses those too)."""
        qid, docno = _obj(qid), _obj(docno)
        score = _floats(score, source, "score")
        if not (len(qid) == len(docno) == len(score)):
            raise InputFormatError(source, None, None, "qid, docno and score columns differ in length")
        line = np.arange(1, len(qid) + 1, dtype=np.int64) if line is None else np.asarray(line, np.int64)
        _check_unique(qid, docno, line, source, "document")
        return cls(qid, docno, score, line, name, source)

    @classmethod
    def from_rows(cls, rows, *, name="run", source="<memory>") -> "Run":
        """From ``{qid: {docno: score}}`` or ``(qid, docno, score)`` tuples."""
        if isinstance(rows, Mapping):
            rows = [(q, d, s) for q, docs in rows.items() for d, s in docs.items()]
        rows = list(rows)
        cols = list(zip(*rows)) if rows else [(), (), ()]
        return cls.from_columns(*cols, name=name, source=source)

    def renamed(self, name: str) -> "Run":
        return Run(self.qid, self.docno, self.score, self.line, name, self.source)
