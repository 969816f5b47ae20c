"""Writing report files atomically.

Every requested format is rendered in memory first; only then is anything written.
Each file goes to a temporary file in the target directory and is moved into place
with :func:`os.replace` (atomic on POSIX and Windows within one file system) after
*all* temporary files are complete. A failing renderer therefore leaves no file at
all, and a failure while writing leaves the previous report files untouched.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Sequence

from .render import RENDERERS, render

DEFAULT_FORMATS = ("markdown", "csv", "json")


def render_files(report: Report, formats: Sequence[str] | None = None) -> dict[str, str]:
    """``{file name: text}`` for every format (default: markdown, csv, json; also
    latex and html, see :data:`evalkit.report.render.RENDERERS`).

    :raises ValueError: unknown format, or two formats produce the same file name.
    """
    formats = tuple(formats or DEFAULT_FORMATS)
    unknown = [f for f in formats if f not in RENDERERS]
    if unknown:
        raise ValueError(f"unknown output format(s) {', '.join(unknown)} (known: {', '.join(RENDERERS)})")
    files: dict[str, str] = {}
    for fmt in formats:
        for name, text in render(report, fmt).items():
            if name in files:
                raise ValueError(f"two output formats both write {name}")
            files[name] = text
    return files


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_files(files: dict[str, str], directory: str | os.PathLike) -> list[Path]:
    """Write ``{file name: text}`` into ``directory`` (created if needed), all or nothing.

    :returns: the written paths, in the order given.
    :raises OSError: the directory cannot be created or a file cannot be written; no
        target file has been replaced when this happens during the temporary writes.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    mode = 0o666 & ~_umask()  # mkstemp creates 0600 files; give them the usual mode
    temps: list[tuple[str, Path]] = []
    try:
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
            temps.append((tmp, directory / name))
            os.chmod(tmp, mode)
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, target in temps:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    return [target for _, target in temps]


def write_report(report: Report, directory: str | os.PathLike, formats: Sequence[str] | None = None) -> list[Path]:
    """Render ``formats`` of ``report`` and write them into ``directory``.

    Files: ``report.md`` (markdown); ``means.csv`` and ``per_query.csv`` (csv, plus
    ``statistics.csv`` and ``flips.csv`` when the report has significance tests);
    ``report.json`` (json); ``report.tex`` (latex); ``report.html`` (html).

    :returns: the written paths.
    :raises ValueError: unknown format. Rendering errors propagate before any file
        or directory is created.
    """
    files = render_files(report, formats)
    return write_files(files, directory)
