"""Exception types. Every error evalkit raises on bad input derives from
:class:`EvalkitError`; messages name the file, line and field where there is one."""

from __future__ import annotations
from typing import Any


class EvalkitError(Exception):
    """Base class of all evalkit errors."""


class InputFormatError(EvalkitError, ValueError):
    """A qrels or run file is malformed.

    :param path: file name (or ``"<string>"``), :param line: 1-based line number,
    :param field: the field that is wrong (``"score"``, ``"grade"`` ...).
    """

    def __init__(self, path: str, line: int | None, field: str | None, message: str) -> None:
        self.path, self.line, self.field = path, line, field
        where = str(path)
        if line is not None:
            where += f":{line}"
        if field:
            where += f": field '{field}'"
        super().__init__(f"{where}: {message}")


class FlavourError(EvalkitError, ValueError):
    """A flavour string or composition is invalid (unknown name, bad parameter)."""


class RegistryError(EvalkitError):
    """Plugin discovery failed: duplicate component name or a plugin that fails to import."""


class ConfigError(EvalkitError, ValueError):
    """A YAML config is invalid; the message names the file, line and key."""


class EvaluationError(EvalkitError, ValueError):
    """Evaluation cannot proceed under the chosen conventions (for example
    ``missing=error`` and a qrels query absent from the run)."""


class MissingQueriesError(EvaluationError):
    """``missing=error``: a qrels query has no line in the run (the message names the
    first five such queries)."""


class RankColumnError(EvaluationError):
    """A tie policy that orders the run by its rank column (``ties=rank``, the
    ``ndeval.*`` presets) met a run without one, or a query in which two documents
    share a rank (ndeval refuses those: ``duplicate rank``, ndeval.c:1099-1106).

    ``rows`` (``int64``, run row indices) and ``rank`` name the two documents sharing a
    rank, ``None`` when the column is missing; the caller adds the run, query and file
    lines (:func:`evalkit.engine.evaluate.evaluate`)."""

    def __init__(self, message: str, rows: Any = None, rank: int | None = None) -> None:
        self.rows, self.rank = rows, rank
        super().__init__(message)


#: How to get a rank column, for the message of a run without one.
HOW_TO_KEEP_RANK = ("read the run with evalkit.read_run(path, keep_rank=True), or pass rank= to "
                    "Run.from_columns / Run.from_df (the command line and the config runner keep it "
                    "when a flavour needs it)")


class ReportError(EvalkitError, ValueError):
    """A report cannot be rendered or written as asked (unknown output format, no
    output directory, an output directory that holds files evalkit did not write)."""


class ArgumentError(EvalkitError, TypeError, ValueError):
    """A function of the Python API got an argument it cannot use (wrong type, shape,
    dtype or value; for example a complex or string ``y_true`` in
    :func:`evalkit.arrays.score`, or a run that is not a :class:`~evalkit.data.Run`);
    the message names the argument. Also a ``TypeError`` and a ``ValueError``, so code
    that caught the bare exceptions keeps working."""


class UnknownNameError(EvalkitError, KeyError):
    """A lookup by name found nothing (a system, flavour label or flavour pair of a
    result or report); the message lists the known names.

    Also a :class:`KeyError`, as a failed lookup is in Python; unlike a plain
    ``KeyError``, ``str()`` gives the message without quotes.

    >>> str(UnknownNameError("unknown system 'x' (known: a, b)"))
    "unknown system 'x' (known: a, b)"
    """

    def __str__(self) -> str:
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class ComponentOutputError(EvaluationError):
    """A gain or discount returned a wrong shape, dtype, a non-finite or a negative
    value. ``family`` and ``component`` name it; ``value`` is the offending input
    (a grade for a gain, a rank for a discount, the query's index for an IDCG
    strategy), which the caller turns into a query and document name
    (:func:`evalkit.engine.evaluate.evaluate`)."""

    def __init__(self, family: str, component: str, value: float | None, message: str, context: str = "") -> None:
        self.family, self.component, self.value, self.detail = family, component, value, message
        super().__init__(f"{context}{family} '{component}': {message}")


class InvalidGradeError(EvaluationError):
    """A judged grade the flavour's conventions refuse: a negative grade under
    ``negative=error`` (:class:`NegativeGradeError`), or a grade a learning-to-rank
    library refuses as a label under ``grades=lightgbm`` / ``grades=xgboost`` (not an
    integer, negative, or above the library's largest label).
    ``value`` is the first such grade; :meth:`at` adds where it was judged (query,
    document, file and line; or row and column of ``y_true``)."""

    def __init__(self, value: float, message: str, context: str = "") -> None:
        self.value, self.detail, self.context = value, message, context
        super().__init__(f"{context}{message}")

    def at(self, where: str) -> "InvalidGradeError":
        """This error with ``where`` (the query and document) appended."""
        return type(self)(self.value, self.detail + where, self.context)


class NegativeGradeError(InvalidGradeError):
    """A judged grade is negative and the flavour's ``negative`` convention is
    ``error`` (as scikit-learn ``ndcg_score`` refuses a negative ``y_true``).
    ``value`` is the first such grade; :meth:`at` adds where it was judged."""


class EmptyEvaluationWarning(UserWarning):
    """Nothing was evaluated for a run: it shares no query with the qrels, or a flavour's
    conventions (``empty=skip``, ``run_filter=unjudged``) leave out every query it shares,
    so that flavour's mean is undefined (``NaN``)."""


class ReferenceDivergenceWarning(UserWarning):
    """The input is one on which a preset's reference library, run the way its users run
    it, computes something other than the preset does, for a documented reason that is
    not part of the measure (:attr:`evalkit.components.Preset.interleaved_topics`:
    pyndeval, and so ir_measures' ``alpha_nDCG`` / ``ERR_IA`` / ``nERR_IA``, split a topic
    whose lines are not contiguous in the run). evalkit's value stands; the warning says
    that the library's would differ, and why."""


#: The environment variable naming third-party plugins not to load (comma-separated
#: entry-point names; :mod:`evalkit.registry`), quoted by the disabled-plugin messages.
DISABLE_ENV = "EVALKIT_DISABLE_PLUGINS"


class DisabledPluginError(FlavourError, RegistryError):
    """A flavour or preset asks for a component of a third-party plugin that evalkit
    disabled at start-up (it failed to import, to register or its probe; see
    :class:`PluginDisabledWarning`). The message names the plugin and why it was
    disabled. A user error (exit status 2): the way out is to fix, upgrade or
    uninstall the plugin, or not to use its components."""


class ComponentContractError(RuntimeError):
    """A component (a plugin's, or a built-in's) broke its contract during an
    evaluation: it returned an output of the wrong type, dtype or shape, a tie
    policy's order is not a permutation of each query's rows, a metric's value is
    not finite where it says it is defined, or the component called ``sys.exit()``.

    Not an :class:`EvalkitError`: it is a bug in the component, not a mistake in the
    input, so the command line exits with status 3 (internal error). ``family``,
    ``component`` (the name), ``origin`` (``evalkit (built-in)`` or ``<distribution>
    <version> (entry point '<name>')``) and ``plugin`` (the entry-point name, ``None``
    for a built-in) say whose it is; the message says what was wrong."""

    def __init__(self, family: str, component: str, origin: str, message: str, plugin: str | None = None) -> None:
        self.family, self.component, self.origin, self.plugin, self.detail = family, component, origin, plugin, message
        super().__init__(message)


class PluginInterrupt(KeyboardInterrupt):
    """Ctrl-C (``KeyboardInterrupt``) arrived while a component's code was running;
    ``where`` names the component and its plugin. Still a ``KeyboardInterrupt``: the
    command stops (exit status 130) and says which plugin was running."""

    def __init__(self, where: str) -> None:
        self.where = where
        super().__init__(where)


class PluginDisabledWarning(UserWarning):
    """A third-party plugin failed to import, to register its components, or evalkit's
    start-up probe of one of them, and was disabled: every other plugin and every
    built-in component still work. The message names the plugin (distribution and
    entry point), why, and how to stop loading it (``EVALKIT_DISABLE_PLUGINS`` or
    ``evalkit --no-plugins``); the command line prints it as one ``evalkit: warning:``
    line. Asking for one of its components then raises :class:`DisabledPluginError`."""
