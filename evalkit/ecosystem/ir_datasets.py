"""Qrels by ir_datasets id: ``irds:DATASET_ID`` wherever a qrels file is accepted.

``evalkit.read_qrels("irds:msmarco-passage/trec-dl-2020/judged")``, ``evalkit eval
irds:DATASET_ID RUN -m ...``, ``qrels: irds:DATASET_ID`` in a config (and the same for
subtopic qrels: ``read_subtopic_qrels``, ``--subtopic-qrels``, ``subtopic_qrels:``) read the
judgments ir_datasets provides for that dataset; ``-m official`` (a config flavour
``official``) evaluates the measures ir_datasets names as the dataset's official ones.

What is read, from ir_datasets 0.6.3's own API (``ir_datasets/__init__.py``,
``formats/trec.py``, ``datasets/base.py``):

* ``ir_datasets.load(id).qrels_iter()`` yields ``TrecQrel(query_id, doc_id, relevance,
  iteration)`` or, for diversity collections, ``TrecSubQrel(query_id, doc_id, relevance,
  subtopic_id)``. The grades are the ``relevance`` values as ir_datasets states them, unchanged
  (negative grades included); what each level means is ``qrels_defs()``
  (:func:`dataset_info`). For subtopic judgments, the ordinary qrels give each document its
  largest grade over the subtopics (the document is relevant to the topic when it is relevant to
  one of its subtopics, ndeval's reading); :func:`read_subtopic_qrels` keeps every subtopic.
* ``documentation()['official_measures']`` lists the official measures as ir_measures strings
  (``['nDCG@10', 'RR(rel=2)', 'AP(rel=2)']`` for ``msmarco-passage/trec-dl-2020``), which
  evalkit reads as the ``ir_measures.*`` presets (what ir_measures computes for them).
* ir_datasets downloads a dataset's files on first use into ``IR_DATASETS_HOME`` (default
  ``~/.ir_datasets``). A dataset that is neither there nor downloadable (no network) is a
  :class:`DatasetError` naming the id and what ir_datasets said; so is an unknown id.

ir_datasets is imported only when an ``irds:`` source is read (the ``irds`` extra:
``pip install "evalkit-ndcg[irds]"``). This module itself imports nothing heavy, so the readers,
the command line and the config loader can test a source with :func:`is_dataset_id` for free.
"""

from __future__ import annotations

from typing import Any, Iterable, TYPE_CHECKING

from ..errors import FlavourError, InputFormatError
from . import require

if TYPE_CHECKING:
    from ..registry import Registry

#: Prefix of a dataset id where a qrels path is expected.
SCHEME = "irds:"
#: The measure spec (``-m official``, a config flavour) standing for the official measures.
OFFICIAL = "official"
#: Longest part of ir_datasets' own error message repeated in ours.
_MAX_SAID = 600


class DatasetError(InputFormatError):
    """An ``irds:`` source cannot be read: unknown id, no qrels, not available offline, no
    official measures. The message names the ``irds:`` source and what ir_datasets said
    (exit status 2 on the command line)."""

    def __init__(self, source: str, message: str) -> None:
        super().__init__(source, None, None, message)


def is_dataset_id(source: Any) -> bool:
    """Whether ``source`` is a string ``irds:DATASET_ID`` (not a path, not file text)."""
    return isinstance(source, str) and source.startswith(SCHEME) and "\n" not in source


def _said(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= _MAX_SAID else text[: _MAX_SAID - 3] + "..."


def load(source: str) -> Any:
    """The ir_datasets dataset of ``source`` (``"irds:ID"``).

    :raises DatasetError: an empty or unknown id (ir_datasets' ``KeyError``) or any error
        ir_datasets raises while resolving it.
    :raises MissingDependencyError: ir_datasets is not installed.
    """
    dataset_id = source[len(SCHEME):].strip()
    if not dataset_id:
        raise DatasetError(source, "no dataset id after 'irds:' (irds:DATASET_ID, e.g. "
                                   "irds:msmarco-passage/trec-dl-2020/judged)")
    irds = require("ir_datasets", "irds")
    try:
        return irds.load(dataset_id)
    except KeyError:
        raise DatasetError(source, f"ir_datasets has no dataset {dataset_id!r} (its ids: `ir_datasets list`, "
                                   "or https://ir-datasets.com)") from None
    except Exception as exc:  # noqa: BLE001 - whatever the library raised, named with the id
        raise DatasetError(source, f"ir_datasets cannot load {dataset_id!r}: {_said(exc)}") from None


def _judgments(source: str) -> tuple[list, Any]:
    """``(rows, namedtuple class)`` of the dataset's qrels, read whole."""
    ds = load(source)
    if not ds.has_qrels():
        raise DatasetError(source, "ir_datasets provides no qrels for this dataset")
    try:
        cls = ds.qrels_cls()
        rows = list(ds.qrels_iter())
    except Exception as exc:  # noqa: BLE001 - not downloaded and no network, a missing local file, ...
        raise DatasetError(source, f"ir_datasets cannot provide the qrels here (not available offline? they are "
                                   f"kept under IR_DATASETS_HOME): {_said(exc)}") from None
    return rows, cls


def _grades(rows: list, source: str) -> Any:
    import numpy as np

    grade = np.fromiter((r.relevance for r in rows), dtype=np.float64, count=len(rows))
    return grade


def read_qrels(source: str) -> Any:
    """The dataset's qrels as :class:`~evalkit.Qrels` (``source`` is ``"irds:ID"``).

    :returns: qrels with ``source == "irds:ID"``; grades ``float64`` ``(n,)`` as ir_datasets
        states them; for subtopic judgments (``TrecSubQrel``), each document's largest grade.
    :raises DatasetError: see :func:`load`; no qrels; ir_datasets fails to provide them.
    :raises InputFormatError: a grade that is not an integer, or a document judged twice for
        one query (the row, 1-based, in ``qrels_iter()`` order, as the line).
    """
    import numpy as np

    from ..data import Qrels

    rows, cls = _judgments(source)
    qid = [r.query_id for r in rows]
    docno = [r.doc_id for r in rows]
    grade = _grades(rows, source)
    line = np.arange(1, len(rows) + 1, dtype=np.int64)
    if "subtopic_id" in getattr(cls, "_fields", ()):  # one document per (query, subtopic): keep the largest grade
        from ..engine.factorize import factorize

        (qc, dc), _ = factorize(np.asarray(qid, dtype=object), np.asarray(docno, dtype=object))
        order = np.lexsort((-grade, dc, qc))
        first = np.ones(len(order), dtype=bool)
        first[1:] = (qc[order][1:] != qc[order][:-1]) | (dc[order][1:] != dc[order][:-1])
        keep = np.sort(order[first])
        qid, docno = [qid[i] for i in keep], [docno[i] for i in keep]
        grade, line = grade[keep], line[keep]
    return Qrels.from_columns(qid, docno, grade, source=source, line=line)


def read_subtopic_qrels(source: str) -> Any:
    """The dataset's subtopic judgments as :class:`~evalkit.SubtopicQrels`.

    :raises DatasetError: as :func:`read_qrels`, or the dataset's qrels have no subtopic
        (``qrels_cls()`` is not ``TrecSubQrel``-like: no ``subtopic_id`` field).
    """
    import numpy as np

    from ..data import SubtopicQrels

    rows, cls = _judgments(source)
    fields = getattr(cls, "_fields", ())
    if "subtopic_id" not in fields:
        raise DatasetError(source, f"the dataset's qrels have no subtopics (ir_datasets gives {cls.__name__}"
                                   f"({', '.join(fields)}), not TrecSubQrel)")
    return SubtopicQrels.from_columns([r.query_id for r in rows], [r.subtopic_id for r in rows],
                                      [r.doc_id for r in rows], _grades(rows, source), source=source,
                                      line=np.arange(1, len(rows) + 1, dtype=np.int64))


def spark_qrels(spark: Any, source: str, *, subtopics: bool = False) -> Any:
    """The dataset's qrels as a Spark DataFrame in the layout of
    :func:`evalkit.spark.io.read_qrels` (``qid string, docno string, grade double, order
    long``; with ``subtopics``, :func:`evalkit.spark.io.read_subtopic_qrels`'s, with
    ``subtopic string``): read on the driver by :func:`read_qrels` /
    :func:`read_subtopic_qrels` (ir_datasets gives the judgments to one process), then
    distributed (``evalkit eval irds:ID RUN --engine spark``, a config's ``engine: spark``)."""
    rows: Iterable[tuple[Any, ...]]
    if subtopics:
        sq = read_subtopic_qrels(source)
        rows = zip(sq.qid.tolist(), sq.subtopic.tolist(), sq.docno.tolist(), sq.grade.tolist(), range(len(sq.grade)))
        schema = "qid string, subtopic string, docno string, grade double, order long"
    else:
        q = read_qrels(source)
        rows = zip(q.qid.tolist(), q.docno.tolist(), q.grade.tolist(), range(len(q)))
        schema = "qid string, docno string, grade double, order long"
    return spark.createDataFrame(list(rows), schema=schema)


def official_measures(source: str) -> list[str]:
    """The dataset's official measures, ir_measures strings as ir_datasets states them
    (``documentation()['official_measures']``).

    :raises DatasetError: see :func:`load`; ir_datasets states none for this dataset.
    """
    ds = load(source)
    try:
        docs = ds.documentation() if hasattr(ds, "documentation") else {}
    except Exception as exc:  # noqa: BLE001
        raise DatasetError(source, f"ir_datasets cannot give the dataset's documentation: {_said(exc)}") from None
    found = (docs or {}).get("official_measures")
    if not found:
        raise DatasetError(source, "ir_datasets states no official measures for this dataset "
                                   "(documentation()['official_measures']); name the measures with -m")
    return [str(m) for m in found]


def dataset_info(source: str) -> dict:
    """What ir_datasets states about the dataset's judgments: ``{"id", "relevance_levels"
    ({grade: meaning}, ``qrels_defs()``), "official_measures" (list, possibly empty),
    "subtopics" (bool)}``."""
    ds = load(source)
    docs = ds.documentation() if hasattr(ds, "documentation") else {}
    has = ds.has_qrels()
    return {
        "id": source[len(SCHEME):],
        "relevance_levels": dict(ds.qrels_defs()) if has else {},
        "official_measures": list((docs or {}).get("official_measures") or []),
        "subtopics": has and "subtopic_id" in getattr(ds.qrels_cls(), "_fields", ()),
    }


def expand_official(specs: Iterable[str], qrels_source: Any, registry: Registry | None = None) -> list[str]:
    """``specs`` with ``official`` replaced by the official measures of the ``irds:``
    qrels (each kept once); ``specs`` unchanged, and ir_datasets not imported, when no spec
    is ``official`` or the qrels are not ``irds:`` (then ``official`` is trec_eval's
    official measure set, as ``trec_eval -m official``: :mod:`evalkit.trec_eval_compat`).

    :raises FlavourError: an official measure evalkit has no preset for (naming it and
        the dataset).
    :raises DatasetError: as :func:`official_measures`.
    """
    specs = list(specs)
    if OFFICIAL not in specs:
        return specs
    if not is_dataset_id(qrels_source):  # trec_eval's official set
        return specs
    from ..presets import expand_spec

    official = official_measures(qrels_source)
    for m in official:
        try:
            expand_spec(m, registry)
        except FlavourError as exc:
            raise FlavourError(f"{qrels_source}: official measure {m!r}: {exc}") from None
    out: list[str] = []
    for spec in specs:
        for s in (official if spec == OFFICIAL else [spec]):
            if s not in out:
                out.append(s)
    return out
