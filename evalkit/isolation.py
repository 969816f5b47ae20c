"""Keeping what plugin code prints off evalkit's standard output.

:func:`stdout_to_stderr` is what :func:`evalkit.registry.build_registry` (a plugin's
import and hooks), :mod:`evalkit.probe` and :func:`evalkit.engine.checks.call_component`
(every component call) run plugin code under: ``print`` then writes to standard error,
so ``evalkit eval --format json|tsv`` and report files hold only evalkit's output.

Unlike :func:`contextlib.redirect_stdout`, which saves and restores ``sys.stdout``
per use, the redirection is counted under a lock: when two threads run components
at once (a program calling :func:`evalkit.evaluate` from a thread pool), the last one
to leave restores the original stream, whatever the order they leave in, instead of
possibly leaving ``sys.stdout`` pointing at standard error for good. While any plugin
code runs, other threads' prints go to standard error too. Cost: a lock and two
assignments per call.
"""

from __future__ import annotations

import _thread
import contextlib
import sys
from typing import Iterator

__all__ = ["stdout_to_stderr"]

#: ``threading.Lock()`` is this function (``threading.Lock = _thread.allocate_lock``);
#: called directly, evaluating imports no :mod:`threading` (issue 27).
_LOCK = _thread.allocate_lock()
_depth = 0
_saved = None


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Within the block, ``sys.stdout`` is ``sys.stderr``; restored when the last
    nested or concurrent block leaves."""
    global _depth, _saved
    with _LOCK:
        if _depth == 0:
            _saved = sys.stdout
            sys.stdout = sys.stderr
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0:
                sys.stdout, _saved = _saved, None
