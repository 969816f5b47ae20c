"""Regular expressions written by users (a config's ``name_pattern``), matched with a
time bound: Python's ``re`` backtracks without limit, so a pattern such as ``(a+)+$``
on a long file name runs for hours. The `regex <https://pypi.org/project/regex/>`_
package (``regex.search(..., timeout=...)``) stops the match and raises
``TimeoutError``, which becomes :class:`UserRegexTimeout` here. Every user regex goes
through :func:`compile_user_regex` and :func:`search`: the one bound."""

from __future__ import annotations
from typing import Any

#: seconds one match of a user regex may take
TIMEOUT_SECONDS = 1.0


class UserRegexTimeout(Exception):
    """A user regex took longer than :data:`TIMEOUT_SECONDS` on one string."""


def compile_user_regex(pattern: str) -> Any:
    """``regex.compile(pattern)`` (the ``re`` syntax, ``regex``'s VERSION0).

    :raises ValueError: the pattern does not compile (the message says why)."""
    import regex

    try:
        return regex.compile(pattern, regex.VERSION0)
    except regex.error as exc:
        raise ValueError(str(exc)) from None


def search(compiled: Any, text: str, timeout: float = TIMEOUT_SECONDS) -> Any:
    """``compiled.search(text)``, stopped after ``timeout`` seconds.

    :raises UserRegexTimeout: the match took longer (catastrophic backtracking)."""
    try:
        return compiled.search(text, timeout=timeout)
    except TimeoutError:
        raise UserRegexTimeout(f"the regular expression took more than {timeout:g} s on {text!r} "
                               "(nested quantifiers such as (a+)+ backtrack without end)") from None
