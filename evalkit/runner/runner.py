"""Running a config: read qrels and runs, evaluate every flavour, return a Report.

The runner prints nothing and writes nothing; ``evalkit run`` prints the report and
writes its files (:func:`evalkit.report.write_report`).
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from ..backends import Backend, engine_options, get_backend
from ..engine.evaluate import evaluate, needs_rank
from ..errors import ConfigError, FlavourError
from ..results import Results
from ..engine.checks import require_common_queries
from ..io import read_qrels, read_run, read_subtopic_qrels
from ..report.model import Report
from ..registry import Registry, registry_or_default
from ..sensitivity import JudgedAtK, cutoffs_of, judged_at_k, tie_bounds
from .config import Config, load_config

if TYPE_CHECKING:  # pragma: no cover
    from ..flavour import Flavour
if TYPE_CHECKING:
    from ..registry import Registry


def run_config(
    config: str | os.PathLike | Mapping[str, Any] | Config,
    *,
    registry: Registry | None = None,
    base_dir: str | os.PathLike | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    sensitivity: bool | None = None,
    store: object = None,
    label: str | None = None,
    significance: bool = True,
    unjudged_bounds: object = None,
) -> Report:
    """Evaluate the runs of a config under its flavours.

    The importable equivalent of ``evalkit run CONFIG.yaml`` (minus printing and
    writing: call ``evalkit.report.write_report(report)`` to write the files to the
    config's ``output.dir``).

    :param config: a YAML file path, a config mapping (paths relative to ``base_dir``,
        default the current directory) or a loaded :class:`Config`.
    :param registry: component registry (default: :func:`evalkit.default_registry`).
    :param progress: optional callback ``progress(stage, done, total)`` (see
        :mod:`evalkit.progress`): stage ``"runs"`` counts runs read and evaluated,
        ``"statistics"`` the significance tests. The runner itself prints nothing.
    :param unjudged_bounds: the unjudged bounds (:mod:`evalkit.bounds`) in the report:
        ``None`` (default): as the config's ``report.unjudged_bounds`` says; ``False``:
        not computed; ``True`` / ``"qrels"``, ``"query"`` or a grade: computed with
        that highest grade (:attr:`Report.unjudged_bounds`).
    :param sensitivity: compute the tie spread and judged@k (below); ``None`` (default):
        as the config's ``report.sensitivity`` says (default ``True``). ``False`` saves
        two evaluations of every flavour per run (a large benchmark run): the report then
        has neither (``Report.tie_bounds`` and ``Report.judged`` are ``None``).
    :returns: :class:`~evalkit.report.Report` whose results have shape
        ``(n_runs, n_flavours, n_qrels_queries)``, with its significance tests
        computed (:attr:`Report.significance`; settings from the config's
        ``statistics:``, the defaults with a baseline, none without either).
    :raises ConfigError: invalid config (file, line and key in the message).
    :raises InputFormatError: a malformed qrels or run file (file, line, field).
    :raises EvaluationError: a convention set to ``error`` was triggered; a run shares
        no query with the qrels, or a file is empty (nothing evaluated).

    :param store: the results store (:mod:`evalkit.store`): ``None`` (default) as the
        config's ``store:`` section says (off without one), ``True`` on (``evalkit run``'s
        default), ``False`` off, a path, or an open :class:`~evalkit.store.ResultsStore`.
        Stored values whose key (qrels, run, flavour, evalkit version) is unchanged are
        reused and the rest computed and stored; the report's ``metadata["_store"]`` is
        then a :class:`~evalkit.store.cached.StoreUse` (how many, under which label).
        Used with an in-process engine only (:attr:`evalkit.backends.Backend.in_process`).
    :param label: the label the evaluation is recorded under (default:
        :func:`evalkit.store.default_label` of the config's directory).
    :param significance: compute the significance tests now (default); ``False`` leaves
        them to the first access of :attr:`Report.significance` (``evalkit gate`` needs none).
    :raises StoreError: the store file is not an evalkit store, damaged or newer.

    The report also holds the tie spread (every flavour under the pessimistic and the
    optimistic tie policy, :func:`evalkit.sensitivity.tie_bounds`) and judged@k at
    every cutoff of the flavours (:func:`evalkit.sensitivity.judged_at_k`), unless
    ``sensitivity`` is off.

    Each run is read once, joined with the qrels once and sorted once per tie policy;
    every flavour reuses those arrays (:func:`evalkit.evaluate`, called run by run so
    that progress can be reported and only one run is in memory at a time).
    """
    registry = registry_or_default(registry)
    cfg = config if isinstance(config, Config) else load_config(config, registry=registry, base_dir=base_dir)
    flavours = [f.flavour for f in cfg.flavours]
    if sensitivity is None:
        sensitivity = cfg.sensitivity
    total = len(cfg.runs)
    if progress is not None:
        progress("runs", 0, total)
    try:
        backend = get_backend(cfg.engine.get("name"), registry)
        options = engine_options(backend, {k: v for k, v in cfg.engine.items() if k != "name"})
    except (FlavourError, ConfigError) as exc:
        raise ConfigError(f"{cfg.source}: engine: {exc}") from None
    use = unavailable = None  # what the results store did (evalkit.store.cached.StoreUse), why not
    if not backend.in_process:  # the backend reads the files itself, every run in one evaluation
        results, tie_spread, judged = _evaluate_files(cfg, flavours, registry, backend, options,
                                                      sensitivity=sensitivity)
        if progress is not None:
            progress("runs", total, total)
    else:
        evaluate_fn = functools.partial(backend.evaluate, **options) if options else backend.evaluate
        # --- results store (evalkit.store): reuse what is stored, compute the rest ---
        from ..store import ResultsStore, StoreUnavailableError, default_label, implicit_store, store_path

        path = store.path if isinstance(store, ResultsStore) else store_path(cfg, store)
        db = store if isinstance(store, ResultsStore) else None
        if path is not None and db is None:
            try:
                db = ResultsStore(path)
            except StoreUnavailableError as exc:  # the default store in a read-only place: go without
                if not implicit_store(cfg, store):
                    raise
                unavailable = f"results store not used: {exc}"
        if db is not None:
            from ..store.cached import evaluate_with_store

            try:
                results, tie_spread, judged, use = evaluate_with_store(
                    cfg, flavours, registry, progress, db, sensitivity=sensitivity,
                    label=label or default_label(cfg.base_dir),
                    evaluate_fn=evaluate_fn)
            finally:
                if db is not store:
                    db.close()
        # --- end of the results store ---
        else:
            results, tie_spread, judged = _evaluate_locally(
                cfg, flavours, registry, progress, evaluate_fn, sensitivity=sensitivity)
    metadata = config_metadata(cfg)
    if use is not None:
        metadata["_store"] = use
    if unavailable is not None:
        metadata["_store_unavailable"] = unavailable
    high = cfg.unjudged_bounds if unjudged_bounds is None else (
        None if unjudged_bounds is False else "qrels" if unjudged_bounds is True else unjudged_bounds)
    bounds = None if high is None else _unjudged_bounds(cfg, flavours, registry, high, results)
    report = Report(results=results, baseline=cfg.baseline, metadata=metadata,
                    statistics=cfg.statistics, baselines=cfg.baselines,
                    tie_bounds=tie_spread, judged=judged, unjudged_bounds=bounds)
    if significance:
        report.compute_significance(progress)
    return report


def _evaluate_locally(cfg: Config, flavours: Any, registry: Registry, progress: Any, evaluate: Any = evaluate, *, sensitivity: bool = True) -> Any:
    """Run by run, so that progress can be reported and one run is in memory at a time
    (``evaluate``: the engine's function, :func:`evalkit.evaluate` by default); returns
    the results, the tie spread ``(low, high)`` and judged@k (both ``None`` when not
    ``sensitivity``)."""
    qrels = read_qrels(cfg.qrels)
    subtopics = read_subtopic_qrels(cfg.subtopic_qrels) if cfg.subtopic_qrels is not None else None
    parts, lows, highs, judged = [], [], [], []
    keep_rank = needs_rank(flavours, registry)  # a tie policy orders runs by their rank column
    for i, entry in enumerate(cfg.runs):
        run = read_run(entry.path, name=entry.name, keep_rank=keep_rank)
        require_common_queries(qrels, [run])
        part = evaluate(qrels, [run], flavours, labels=list(cfg.labels), subtopics=subtopics, registry=registry)
        parts.append(part)
        if sensitivity:
            low, high = tie_bounds(qrels, run, part.flavours, registry, subtopics)
            lows.append(low)
            highs.append(high)
            judged.append(judged_at_k(qrels, run, cutoffs_of(part.flavours), registry))
        del run
        if progress is not None:
            progress("runs", i + 1, len(cfg.runs))
    first = parts[0]
    systems = tuple(p.systems[0] for p in parts)
    results = Results(first.qids, systems, first.flavours, first.labels,
                      np.concatenate([p.values for p in parts], axis=0))
    if not sensitivity:
        return results, None, None
    return (results, (np.stack(lows), np.stack(highs)),
            JudgedAtK(systems, cutoffs_of(first.flavours), first.qids, np.stack(judged)))


def _unjudged_bounds(cfg: Config, flavours: list, registry: Any, high: object,
                     results: Results) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)``, each ``float64`` ``(s, f, q)`` like ``results.values``: the
    unjudged bounds of every run (read again, one at a time) under every flavour
    (:func:`evalkit.bounds.unjudged_bounds`; intent-aware flavours substitute in the
    config's subtopic qrels, docs/bounds.md).

    :raises ConfigError: ``high`` is not ``"qrels"``, ``"query"`` or a finite number."""
    import math
    import warnings

    from ..bounds import unjudged_bounds

    if not (high in ("qrels", "query") or (isinstance(high, (int, float)) and not isinstance(high, bool)
                                          and math.isfinite(high))):
        raise ConfigError(f"{cfg.source}: report.unjudged_bounds: {high!r} is not true, false, 'qrels', 'query' "
                          "or a finite grade")
    grade = None if high == "qrels" else high
    qrels = read_qrels(cfg.qrels)
    subtopics = read_subtopic_qrels(cfg.subtopic_qrels) if cfg.subtopic_qrels is not None else None
    lower, upper = np.full(results.values.shape, np.nan), np.full(results.values.shape, np.nan)
    keep_rank = needs_rank(flavours, registry)
    for s, entry in enumerate(cfg.runs):
        run = read_run(entry.path, name=entry.name, keep_rank=keep_rank)
        with warnings.catch_warnings():  # the evaluation warned already
            warnings.simplefilter("ignore")
            b = unjudged_bounds(qrels, run, flavours, high=grade, labels=list(cfg.labels), registry=registry,
                                subtopics=subtopics)
        lower[s], upper[s] = b.lower.values[0], b.upper.values[0]
    return lower, upper


def _evaluate_files(cfg: Config, flavours: list[Flavour], registry: Registry, backend: Backend,
                    options: Mapping[str, Any], *, sensitivity: bool = True) -> tuple[Results, Any, Any]:
    """Every run of the config in one evaluation by a backend that reads the files
    itself (:meth:`evalkit.backends.Backend.evaluate_files`); returns the results, the
    tie spread ``(low, high)`` and judged@k, computed by the backend (both ``None``
    when not ``sensitivity``)."""
    out = backend.evaluate_files(cfg.qrels, [r.path for r in cfg.runs], flavours, labels=list(cfg.labels),
                                 registry=registry, names=[r.name for r in cfg.runs],
                                 subtopics=cfg.subtopic_qrels, sensitivity=sensitivity, options=options)
    return out if sensitivity else (out, None, None)


def _relative(path: Any, base: Any) -> str | None:
    """``path`` relative to ``base`` with ``/`` separators (``None`` stays ``None``);
    absolute when the two lie on different drives."""
    if path is None or (isinstance(path, str) and path.startswith("irds:")):
        return path  # nothing, or an ir_datasets id
    try:
        return os.path.relpath(path, base).replace(os.sep, "/")
    except ValueError:  # Windows: another drive
        return str(path)


def config_metadata(cfg: Config) -> dict[str, Any]:
    """JSON-friendly facts about a config for the report. Paths (qrels, runs, output
    directory) are relative to the config file's directory, as the config writes them,
    so a report names no machine's absolute paths; ``config`` is the file's name. The
    absolute output directory is kept under ``_output_dir`` for :func:`~evalkit.report.write_report`
    (keys starting with ``_`` are never written to a report)."""
    base = cfg.base_dir
    return {
        "title": cfg.title,
        "config": cfg.source if cfg.source == "<mapping>" else os.path.basename(cfg.source),
        "paths_relative_to": "the config file's directory",
        "qrels": _relative(cfg.qrels, base),
        "subtopic_qrels": _relative(cfg.subtopic_qrels, base),
        "runs": {r.name: _relative(r.path, base) for r in cfg.runs},
        "flavour_specs": {f.label: f.spec for f in cfg.flavours},
        "baseline": cfg.baseline,
        "baselines": list(cfg.baselines),
        "output_dir": _relative(cfg.output_dir, base),
        "_output_dir": None if cfg.output_dir is None else str(cfg.output_dir),
        "formats": list(cfg.formats),
        "statistics": None if cfg.statistics is None else cfg.statistics.to_dict(),
    }
