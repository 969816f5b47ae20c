"""Progress reporting for long runs.

The library never prints: long operations (:func:`evalkit.run_config`) accept a
*progress callback* ``progress(stage, done, total)`` -- ``stage`` a short name such as
``"runs"`` (read and evaluate each run) or ``"statistics"`` (significance tests),
``done`` the steps finished so far (``0`` when the stage starts) and ``total`` the
stage's number of steps. ``evalkit run`` passes a :class:`TqdmProgress` (a :mod:`tqdm`
bar on stderr) when stderr is a terminal and nothing otherwise
(:func:`terminal_progress`).
"""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from tqdm import tqdm

ProgressCallback = Callable[[str, int, int], None]

#: Bar captions of the stages :func:`evalkit.run_config` reports.
STAGE_NAMES = {"runs": "evaluating runs", "statistics": "significance tests"}


class Progress(Protocol):
    def __call__(self, stage: str, done: int, total: int) -> None: ...


class TqdmProgress:
    """A progress callback that shows one :class:`tqdm.tqdm` bar per stage.

    :param file: where the bars go (default: ``sys.stderr``).
    :param kwargs: more :class:`tqdm.tqdm` options (``leave`` defaults to ``False``:
        a finished bar is erased).

    Call :meth:`close` (or use it as a context manager) to close an unfinished bar.
    """

    def __init__(self, file: IO[str] | None = None, **kwargs: Any) -> None:
        self.file = file if file is not None else sys.stderr
        self.kwargs = {"leave": False, "dynamic_ncols": True, **kwargs}
        self._stage: str | None = None
        self._bar: tqdm[Any] | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        from tqdm import tqdm

        if stage != self._stage or self._bar is None:
            self.close()
            self._stage = stage
            self._bar = tqdm(total=total, desc=STAGE_NAMES.get(stage, stage), file=self.file, **self.kwargs)
        bar = self._bar
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self._stage = None

    def __enter__(self) -> "TqdmProgress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def terminal_progress(stream: IO[str] | None = None) -> TqdmProgress | None:
    """A :class:`TqdmProgress` on ``stream`` (default ``sys.stderr``) if it is a
    terminal (``stream.isatty()``), else ``None`` (stay quiet: logs, pipes, CI)."""
    stream = stream if stream is not None else sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return TqdmProgress(stream) if tty else None
