""":class:`evalkit.components.Refusal`, defined when first used (issue 27): only a
judgment rule that refuses grades builds one, so ``evalkit eval`` under the default
rules never creates the dataclass. :mod:`evalkit.components` (and :mod:`evalkit.plugin`)
give it by name (PEP 562); its ``__module__`` is ``evalkit.components``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Refusal:
    """What a judgment rule's ``check`` returns when it refuses grades.

    :param mask: ``bool`` ``(m,)`` over the judged grades it was given: the refused ones.
    :param message: ``message(value, count) -> str``: the sentence naming the first
        refused grade ``value`` (``float``) and the number refused, quoting the
        library's own message where it has one.
    :param error: the exception class raised (an :class:`~evalkit.errors.InvalidGradeError`
        subclass; default :class:`~evalkit.errors.InvalidGradeError`).
    """

    __module__ = "evalkit.components"

    mask: np.ndarray
    message: Callable[[float, int], str]
    error: type | None = None
