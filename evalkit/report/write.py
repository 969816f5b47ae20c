"""Writing report files: the set of files of a report is replaced as a whole.

Every requested format is rendered in memory first; only then is anything written.
The files are written into a new temporary directory beside the output directory
(``.<name>.evalkit-new-<pid>-<random>``), flushed to disk, and the temporary
directory is then swapped with the output directory: in one atomic step on Linux
(``renameat2(RENAME_EXCHANGE)``), elsewhere by two renames. The previous report is
deleted after the swap. So the output directory always holds one complete set of
files, all from one run: a failing renderer leaves no file at all, a failure or a
``kill -9`` while writing leaves the previous report untouched, and files of an
earlier run in a format no longer requested do not linger beside the new ones.

Temporaries left by a killed run (``.<name>.evalkit-*`` beside the output directory
whose process is gone, ``.<file>.*.tmp`` of older evalkit versions inside it) are
removed by the next run that writes to the same directory.

Because the directory is replaced, it may hold only report files (the names the
registered formats write, see :func:`evalkit.report.render.register_renderer`): a
directory holding anything else is refused with :class:`~evalkit.errors.ReportError`
(nothing is written or deleted), as is the current working directory or one of its
parents.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence, TYPE_CHECKING

from ..errors import ReportError
from .render import KNOWN_FILES, RENDERERS, render

if TYPE_CHECKING:  # pragma: no cover
    from .model import Report

DEFAULT_FORMATS = ("markdown", "csv", "json")


def render_files(report: Report, formats: Sequence[str] | None = None) -> dict[str, str]:
    """``{file name: text}`` for every format (default: markdown, csv, json; also
    latex and html, see :data:`evalkit.report.render.RENDERERS`).

    :raises ReportError: unknown format, or two formats produce the same file name.
    """
    formats = (formats,) if isinstance(formats, str) else tuple(formats or DEFAULT_FORMATS)
    unknown = [f for f in formats if f not in RENDERERS]
    if unknown:
        raise ReportError(f"unknown output format(s) {', '.join(unknown)} (known: {', '.join(RENDERERS)})")
    files: dict[str, str] = {}
    for fmt in formats:
        for name, text in render(report, fmt).items():
            if name in files:
                raise ReportError(f"two output formats both write {name}")
            files[name] = text
    return files


#: Temporary files of evalkit versions that replaced report files one by one.
_OLD_TEMP = re.compile(r"\..+\..+\.tmp")
_TEMP_MARK = ".evalkit-"


def _temp_pattern(name: str) -> re.Pattern:
    return re.compile(re.escape(f".{name}{_TEMP_MARK}") + r"(new|old)-(\d+)-.+")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists (another user's) or cannot tell: keep it
    return True


def remove_stale_temporaries(directory: str | os.PathLike) -> list[Path]:
    """Remove the temporary directories that killed report writes to ``directory``
    left beside it (``.<name>.evalkit-new|old-<pid>-*`` of a process that is gone).

    A run killed between the two renames of a swap (systems without an atomic
    exchange) leaves no ``directory`` but the previous report in ``-old-``: that one is
    moved back instead of removed.

    :returns: the removed paths.
    """
    directory = Path(directory)
    parent = directory.parent
    pattern = _temp_pattern(directory.name)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(parent))
    except FileNotFoundError:
        return removed
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if m is None or _alive(int(m.group(2))):
            continue
        path = Path(entry.path)
        if m.group(1) == "old" and entry.is_dir(follow_symlinks=False) and not os.path.lexists(directory):
            os.rename(path, directory)  # the previous complete report, moved aside and not replaced
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
        removed.append(path)
    return removed


def check_output_directory(directory: str | os.PathLike, names: Any = ()) -> None:
    """Raise :class:`~evalkit.errors.ReportError` now if :func:`write_files` would
    refuse ``directory`` (so a command can fail before it evaluates anything).

    :param names: file names the report will write besides :data:`KNOWN_FILES`.
    """
    _check_replaceable(Path(os.path.realpath(directory)), names)


def _check_replaceable(directory: Path, names: Any) -> None:
    """Refuse to replace a directory that holds anything but report files."""
    cwd = Path.cwd().resolve()
    if directory == cwd or directory in cwd.parents:
        raise ReportError(f"output directory {directory}: it is the current directory or one of its parents; "
                          "report files are replaced as a whole, so give a directory of their own")
    if not directory.exists():
        return
    if not directory.is_dir():
        raise ReportError(f"output directory {directory}: exists and is not a directory")
    allowed = KNOWN_FILES | set(names)
    foreign = sorted(
        e.name + ("/" if e.is_dir(follow_symlinks=False) else "")
        for e in os.scandir(directory)
        if not (e.is_file(follow_symlinks=False) and (e.name in allowed or _OLD_TEMP.fullmatch(e.name)))
    )
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise ReportError(f"output directory {directory} holds entries that are not report files: {shown}. "
                          "Report files are replaced as a whole (the directory is swapped), so the output "
                          "directory may hold only them: give another directory or move those entries")


def _fsync_dir(path: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - directories cannot be opened there
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directories (Linux ``renameat2(RENAME_EXCHANGE)``);
    ``False`` when the system or file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def write_files(files: dict[str, str], directory: str | os.PathLike) -> list[Path]:
    """Replace the contents of ``directory`` (created if needed) by the files
    ``{file name: text}``, as a whole (see the module docstring).

    :returns: the written paths, in the order given.
    :raises ReportError: ``directory`` holds entries other than report files, is not a
        directory, or is the current directory or one of its parents; its parent
        directory is not writable; a file name is not a plain name.
    :raises OSError: the directory cannot be created or a file cannot be written; the
        previous contents of ``directory`` are then untouched.
    """
    for name in files:
        if not name or name in (".", "..") or os.sep in name or (os.altsep and os.altsep in name):
            raise ReportError(f"report file name {name!r} is not a plain file name")
    if directory is None:
        raise ReportError("no output directory given")
    given = Path(directory)
    directory = Path(os.path.realpath(directory))
    remove_stale_temporaries(directory)
    _check_replaceable(directory, files)
    directory.mkdir(parents=True, exist_ok=True)
    parent = directory.parent
    mode = directory.stat().st_mode & 0o7777
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}{_TEMP_MARK}new-{os.getpid()}-", dir=parent))
    except OSError as exc:
        raise ReportError(f"output directory {directory}: cannot create the temporary directory beside it in "
                          f"{parent} ({exc.strerror or exc}); the report files are replaced as a whole, which "
                          "needs a writable parent directory") from None
    try:
        os.chmod(tmp, mode)
        for name, text in files.items():
            with open(tmp / name, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        _fsync_dir(tmp)
        old = tmp if _exchange(tmp, directory) else _swap_by_renames(tmp, directory)
        _fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return [given / name for name in files]


def _swap_by_renames(new: Path, directory: Path) -> Path:
    """Move ``directory`` aside and ``new`` into its place (where no atomic exchange
    exists); returns where the previous contents went. If the second rename fails, the
    first is undone."""
    old = Path(tempfile.mkdtemp(prefix=f".{directory.name}{_TEMP_MARK}old-{os.getpid()}-", dir=directory.parent))
    os.rmdir(old)
    os.rename(directory, old)
    try:
        os.rename(new, directory)
    except BaseException:
        os.rename(old, directory)
        raise
    return old


def write_report(report: Report, directory: str | os.PathLike, formats: Sequence[str] | None = None) -> list[Path]:
    """Render ``formats`` of ``report`` and write them into ``directory``.

    Files: ``report.md`` (markdown); ``means.csv`` and ``per_query.csv`` (csv, plus
    ``statistics.csv`` and ``flips.csv`` when the report has significance tests);
    ``report.json`` (json); ``report.tex`` (latex); ``report.html`` (html).

    :returns: the written paths.
    :raises ReportError: unknown format. Rendering errors propagate before any file
        or directory is created.
    """
    files = render_files(report, formats)
    return write_files(files, directory)
