"""Library knowledge: one module per library family, each a pluggy plugin registered
directly by :func:`evalkit.registry.build_registry` (as :data:`MODULES`, after the
built-in components of :mod:`evalkit.builtins`).

A module holds what evalkit knows of its libraries: the presets as data (name,
flavour string, native name, description, source file and lines at a version or
commit), the components only those libraries need (a tie policy, a gain, an IDCG
strategy, a metric kernel) and the citations. Their conformance entries live beside
them in ``tests/conformance/entries/<module>.py``. Nothing under ``evalkit/engine``,
``evalkit/flavour.py`` or ``evalkit/kernel.py`` imports these modules
(``tests/test_layers.py``): a library is added by adding its module here, as a
third-party plugin would be added by an entry point.

================================  =====================================================
module                            libraries
================================  =====================================================
:mod:`.trec_eval`                 trec_eval 10.0, trec_eval 9 (pytrec_eval), Pyserini;
                                  :func:`~.trec_eval.trec_eval_flavours` (trec_eval's flags)
:mod:`.trec_eval_measures`        trec_eval's measures beyond NDCG (``all_trec``: bpref,
                                  infAP, Rprec, set_*, num_*...) and their ir_measures names
:mod:`.ir_measures`               ir_measures' default pipeline
:mod:`.sklearn`                   scikit-learn (tie policy ``numpy_argsort``)
:mod:`.ranx`                      ranx (tie policy ``numba_quicksort``)
:mod:`.papers`                    Järvelin & Kekäläinen 2002, Burges et al. 2005
:mod:`.ltr`                       LightGBM, XGBoost, CatBoost, RankLib, TF-Ranking,
                                  torchmetrics (metric ``ndcg_float32``), allRank, pytorchltr
:mod:`.label_rules`               how LightGBM, XGBoost and gdeval.pl read labels (grade
                                  rules ``lightgbm``, ``xgboost``, ``gdeval``, ``float32``;
                                  components only, no preset: not in :data:`MODULES`)
:mod:`.gdeval`                    gdeval.pl (TREC Web track)
:mod:`.spark`                     Spark MLlib / ML, recommenders' Spark evaluation
                                  (metric ``ndcg_mllib``)
:mod:`.ndeval`                    ndeval, pyndeval (diversity)
:mod:`.recsys`                    implicit, LensKit, ignite, recommenders, TorchRec,
                                  RecBole, Elliot (gain ``exp2_from``)
:mod:`.embedding_benchmarks`      sentence-transformers, BEIR, MTEB
:mod:`.search_engines`            Elasticsearch, OpenSearch (IDCG ``judged_at_returned``)
================================  =====================================================
"""

#: The library modules, in registration order (:data:`evalkit.registry.DEFAULT_PLUGINS`).
MODULES = tuple(f"evalkit.libraries.{name}" for name in (
    "trec_eval", "sklearn", "ranx", "ir_measures", "papers", "ltr", "gdeval", "spark",
    "ndeval", "recsys", "embedding_benchmarks", "search_engines", "trec_eval_measures",
))


#: Libraries by how widely their NDCG numbers are reported: ``evalkit identify`` lists
#: the presets of a library in this order (libraries not listed come after,
#: alphabetically). Keys are the preset names' library part (``LIBRARY.MEASURE``).
LIBRARY_ORDER: tuple[str, ...] = (
    "trec_eval", "pytrec_eval", "sklearn", "ranx", "ir_measures", "lightgbm", "xgboost",
    "torchmetrics", "tensorflow_ranking", "tfr", "ranklib", "gdeval", "pyndeval", "ndeval",
    "ndeval_traditional",
    "jarvelin2002", "burges2005",
)
