"""Column names of the qrels and run DataFrames the Spark backend reads.

The backend normalises every input to one long layout before the shuffle (see
:mod:`evalkit.spark.backend`): ``kind`` (``0`` qrels, ``1`` run), ``system``,
``qid``, ``docno``, ``value`` (grade or score, ``double``), ``order`` (``long``,
the input order that tie policies such as ``stable`` and ``input_order`` use) and
``subtopic`` (``2`` subtopic judgments only).
"""

from __future__ import annotations

from dataclasses import dataclass

#: The union layout's kinds.
QRELS, RUN, SUBTOPICS = 0, 1, 2


@dataclass(frozen=True)
class Columns:
    """Names of the input columns.

    :param qid: query id (any type; cast to ``string``, so ``10`` sorts before ``9``
        exactly as the TREC readers' string query ids do).
    :param docno: document id (cast to ``string``).
    :param grade: relevance grade of the qrels (cast to ``double``).
    :param score: retrieval score of the run, higher first (cast to ``double``).
    :param subtopic: the subtopic (intent) column of subtopic qrels.
    :param system: the run column naming the system; when the run DataFrame has no
        such column (or ``None``), it is one system.
    :param order: a sortable column giving the input order; when the DataFrame has
        no such column (or ``None``), the DataFrame's own order (``monotonically_increasing_id()`` taken
        before the shuffle: a text file's line order).
    """

    qid: str = "qid"
    docno: str = "docno"
    grade: str = "grade"
    score: str = "score"
    subtopic: str = "subtopic"
    system: str | None = "system"
    order: str | None = "order"


#: TREC's names (the readers of :mod:`evalkit.spark.io` produce them).
TREC = Columns()
#: The recommender layout of Spark ALS and recommender libraries:
#: ``user, item, prediction`` runs and ``user, item, rating`` qrels.
RECOMMENDER = Columns(qid="user", docno="item", grade="rating", score="prediction")
#: A recommender library's default column names (``userID``, ``itemID``; the Spark
#: presets in :mod:`evalkit.libraries.spark` read it).
RECOMMENDERS_LIB = Columns(qid="userID", docno="itemID", grade="rating", score="prediction")
