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
(nothing is written or deleted), as are the current working directory or one of its
parents and a mount point (it cannot be swapped). :func:`check_output_directory` also
checks, before a command evaluates anything, that a directory can be created beside it
and that its file system has :data:`MIN_FREE_BYTES` free; a write that still fails (the
disk filled meanwhile) is a :class:`~evalkit.errors.ReportError` naming the directory
and the file, the previous contents untouched.
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


#: free bytes the file system of an output directory must have before an evaluation
#: starts (:func:`check_output_directory`); report files are a few kB to a few MB.
MIN_FREE_BYTES = 4 << 20


def check_output_directory(directory: str | os.PathLike, names: Sequence[str] | set[str] = ()) -> None:
    """Raise :class:`~evalkit.errors.ReportError` now if :func:`write_files` would
    refuse ``directory`` or could not write beside it (so a command fails before it
    evaluates anything, naming the directory): not a report directory, a mount point,
    a parent where no temporary directory can be created (read-only, no permission,
    no space), fewer than :data:`MIN_FREE_BYTES` free on its file system.

    :param names: file names the report will write besides :data:`KNOWN_FILES`.
    """
    path = Path(os.path.realpath(directory))
    _check_replaceable(path, names)
    existing = path if path.exists() else next(p for p in path.parents if p.exists())
    parent = path.parent if path.exists() else existing
    try:
        probe = tempfile.mkdtemp(prefix=f".{path.name}{_TEMP_MARK}new-{os.getpid()}-", dir=parent)
    except OSError as exc:
        raise ReportError(f"output directory {path}: cannot create a directory in {parent} "
                          f"({exc.strerror or exc}); the report files are written beside the output directory "
                          "and swapped in as a whole, which needs a writable parent directory") from None
    os.rmdir(probe)
    free = shutil.disk_usage(existing).free
    if free < MIN_FREE_BYTES:
        raise ReportError(f"output directory {path}: only {free:,} bytes free on its file system "
                          f"(at least {MIN_FREE_BYTES:,} needed); free some space or give another directory")


def _check_replaceable(directory: Path, names: Sequence[str] | set[str] | dict[str, str]) -> None:
    """Refuse to replace a directory that holds anything but report files."""
    cwd = Path.cwd().resolve()
    if directory == cwd or directory in cwd.parents:
        raise ReportError(f"output directory {directory}: it is the current directory or one of its parents; "
                          "report files are replaced as a whole, so give a directory of their own")
    if not directory.exists():
        return
    if not directory.is_dir():
        raise ReportError(f"output directory {directory}: exists and is not a directory")
    if os.path.ismount(directory):
        raise ReportError(f"output directory {directory}: is a mount point; the report files are written beside "
                          "it and swapped in as a whole, which cannot cross file systems: give a directory inside "
                          f"it (for example {directory / 'report'})")
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
        directory, is a mount point, or is the current directory or one of its parents;
        its parent directory is not writable; a file name is not a plain name; a file
        cannot be written (a full disk: the previous contents of ``directory`` are then
        untouched).
    :raises OSError: the directory cannot be created.
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
    writing: str | None = None
    try:
        os.chmod(tmp, mode)
        for writing, text in files.items():
            with open(tmp / writing, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        writing = None
        _fsync_dir(tmp)
        old = tmp if _exchange(tmp, directory) else _swap_by_renames(tmp, directory)
        _fsync_dir(parent)
    except OSError as exc:  # a full disk, a quota, an I/O error: name the directory, not the temporary
        shutil.rmtree(tmp, ignore_errors=True)
        what = f"cannot write {writing}" if writing is not None else "cannot swap in the new report files"
        raise ReportError(f"output directory {directory}: {what} ({exc.strerror or exc}); "
                          "its previous contents are untouched") from None
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


def write_report(report: Report, directory: str | os.PathLike | None = None,
                 formats: Sequence[str] | None = None) -> list[Path]:
    """Render ``formats`` of ``report`` and write them into ``directory``.

    Files: ``report.md`` (markdown); ``means.csv`` and ``per_query.csv`` (csv, plus
    ``statistics.csv`` and ``flips.csv`` when the report has significance tests);
    ``report.json`` (json); ``report.tex`` (latex); ``report.html`` (html).

    Defaults, from the report's metadata (:func:`evalkit.runner.config_metadata`):
    the config's ``output.dir`` and ``output.formats`` (markdown, csv, json without them).

    :returns: the written paths.
    :raises ReportError: unknown format; no directory given and none in the metadata.
        Rendering errors propagate before any file or directory is created.
    """
    if directory is None:
        directory = report.metadata.get("_output_dir", report.metadata.get("output_dir"))
        if directory is None:
            raise ReportError("no output directory given: give one or set output.dir in the config")
    if formats is None:
        formats = report.metadata.get("formats") or None
    files = render_files(report, formats)
    return write_files(files, directory)
