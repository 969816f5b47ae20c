"""Terminal tables: :func:`fit_table` lays out ``"simple"`` tables no wider than the
terminal (what ``evalkit eval`` prints, and the tables of ``evalkit run``'s text
report, :mod:`.text`).

Kept apart from :mod:`.text` so that printing one table imports neither the report's
views nor :mod:`tabulate` (whose import reads installed-package metadata through
:mod:`importlib.metadata`): a table of single-line printable ASCII cells is laid out
here, exactly as tabulate's ``"simple"`` format lays it out (:func:`simple_table`;
tests/test_report_layout.py compares the two); any other table goes to tabulate.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from typing import Any, Sequence

#: The narrowest width :func:`to_text` lays out for (narrower terminals get this width).
MIN_WIDTH = 40

#: Space between two columns of a ``"simple"`` tabulate table.
_GAP = 2

#: tabulate's ``MIN_PADDING``: a column is at least its header plus this wide.
_PAD = 2

#: The narrowest a folded header gets (:func:`fold`), however wide the row names.
_MIN_ROOM = 10


def terminal_columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size().columns`` gives it:
    ``COLUMNS`` when it is a positive integer, else the width of the terminal on
    :data:`sys.__stdout__` when it is one (and reports a width), else 80.

    Written out so that neither a table nor the command line's help formatter
    (:class:`evalkit.cli.HelpFormatter`, which argparse builds for every argument it
    adds) imports :mod:`shutil`, and with it :mod:`zlib`, :mod:`bz2` and :mod:`lzma`
    (~2 ms of start-up, issue 27); tests/test_report_layout.py compares the two."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0
    except (AttributeError, ValueError, OSError):  # closed, detached, or not a terminal
        columns = 0
    return columns or 80


def terminal_width() -> int:
    """The width to print for: ``COLUMNS``, else the terminal's size, else 80
    (:func:`terminal_columns`), never below :data:`MIN_WIDTH`."""
    return max(MIN_WIDTH, terminal_columns())


def _longest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def fit_table(rows: Sequence[Sequence[str]], headers: Sequence[str], colalign: Sequence[str],
              width: int | None, keep: int = 1, tablefmt: str = "simple") -> str:
    """A tabulate table no wider than ``width`` characters: when the whole table is
    wider, its columns are split into consecutive blocks (each repeating the first
    ``keep`` columns, the row names) printed one below the other, as R and pandas
    print a wide data frame. Row names too wide for a block of one column (a long
    system name) are wrapped onto several lines within their cell (:func:`_wrap_keys`),
    and long headers folded (:func:`fold`). ``width=None`` never splits.

    >>> print(fit_table([["a", "1", "2", "3"]], ["name", "x", "y", "z"], ["left"] + ["right"] * 3, 16))
    name      x    y
    ------  ---  ---
    a         1    2
    <BLANKLINE>
    name      z
    ------  ---
    a         3
    """
    if width is not None and tablefmt == "simple":
        # a header too long for a block of its own is folded onto several lines
        # (tabulate makes a column at least its header plus _PAD wide)
        # row names too wide are wrapped first (_wrap_keys), then the headers folded
        rows = _wrap_keys(rows, headers, keep, width)
        key = sum(_column_width(rows, headers, c) + _GAP for c in range(keep))
        room = max(_MIN_ROOM, width - key - _PAD)
        headers = [h if c < keep else fold(h, room) for c, h in enumerate(headers)]

    def table(cols: Sequence[int]) -> str:
        return tabulate_simple([[r[c] for c in cols] for r in rows], [headers[c] for c in cols],
                               [colalign[c] for c in cols], tablefmt)

    whole = table(range(len(headers)))
    if width is None or _longest(whole) <= width or len(headers) <= keep + 1:
        return whole
    # greedy: add flavour columns to the current block while the rendered block fits
    # (tabulate pads headers, so the block is measured, not predicted)
    keys = list(range(keep))
    blocks: list[list[int]] = [[]]
    for c in range(keep, len(headers)):
        if blocks[-1] and _longest(table(keys + blocks[-1] + [c])) > width:
            blocks.append([])
        blocks[-1].append(c)
    return "\n\n".join(table(list(range(keep)) + block) for block in blocks)


def _column_width(rows: Sequence[Sequence[str]], headers: Sequence[str], c: int) -> int:
    """Column ``c``'s width in a ``"simple"`` tabulate table (its header plus
    :data:`_PAD`, or its widest cell line)."""
    return max([_longest(headers[c]) + _PAD] + [_longest(r[c]) for r in rows])


def _wrap_keys(rows: Sequence[Sequence[str]], headers: Sequence[str], keep: int, width: int) -> list:
    """``rows`` with the cells of the first ``keep`` columns (the row names) wrapped
    so that those columns and the widest other column (its header unfolded) fit
    ``width`` side by side: the narrowest block :func:`fit_table` can print. When
    that column is wider than half the line (a long flavour string, which
    :func:`fold` breaks), the row names keep half the line. The widest key columns are
    narrowed first, to one common width (never below :data:`_MIN_ROOM` nor their
    header); names are wrapped at spaces where they have some, anywhere otherwise, so
    no character is lost. Unchanged when they fit."""
    out = [list(r) for r in rows]
    if not out or keep < 1:
        return out
    rest = max((_column_width(out, headers, c) + _GAP for c in range(keep, len(headers))), default=0)
    budget = max(width - rest, width // 2) - _GAP * (keep - 1)
    natural = [_column_width(out, headers, c) for c in range(keep)]
    if sum(natural) <= budget:
        return out
    floor = [min(n, max(_MIN_ROOM, _longest(headers[c]) + _PAD)) for c, n in enumerate(natural)]

    def total(cap: int) -> int:
        return sum(min(n, max(cap, f)) for n, f in zip(natural, floor))

    cap = max(natural)
    while cap > 1 and total(cap) > budget:  # at most max(natural) steps over short lists
        cap -= 1
    for c in range(keep):
        room = max(cap, floor[c])
        if natural[c] <= room:
            continue
        for r in out:
            r[c] = "\n".join(part for line in r[c].splitlines() or [""]
                             for part in (textwrap.wrap(line, room, break_on_hyphens=False,
                                                        drop_whitespace=True) or [""]))
    return out


def fold(text: str, room: int) -> str:
    """``text`` on lines of at most ``room`` characters, broken after its commas (a
    flavour string's separators) where it can, anywhere inside a longer piece;
    unchanged when it fits.

    >>> print(fold("ndcg(gain=exp2,discount=log2,idcg=judged)@10", 20))
    ndcg(gain=exp2,
    discount=log2,
    idcg=judged)@10
    """
    if len(text) <= room:
        return text
    lines: list[str] = []
    line = ""
    for piece in re.findall(r"[^,]*,|[^,]+", text):
        if len(line) + len(piece) <= room:
            line += piece
            continue
        if line:
            lines.append(line)
        while len(piece) > room:
            lines.append(piece[:room])
            piece = piece[room:]
        line = piece
    if line:
        lines.append(line)
    return "\n".join(lines)


def _plain(cell: str) -> bool:
    """A cell tabulate measures with ``len`` and lays out on one line: printable ASCII
    (no newline, tab or escape sequence, no wide characters)."""
    return cell.isascii() and cell.isprintable()


def simple_table(rows: Sequence[Sequence[str]], headers: Sequence[str], colalign: Sequence[str]) -> str | None:
    """``rows`` under ``headers`` as tabulate's ``"simple"`` format prints them
    (``disable_numparse=True``, each column aligned ``"left"`` or ``"right"``), or
    ``None`` when tabulate must lay the table out: a cell or header that is not
    single-line printable ASCII, an alignment other than left or right, a row of
    another length than the headers, or no rows.

    The layout, as tabulate 0.9-0.10's: each cell stripped of surrounding spaces; a
    column as wide as its widest cell and at least its header plus :data:`_PAD`;
    headers aligned as their column; a line of ``-`` under the headers; columns
    separated by :data:`_GAP` spaces; trailing spaces removed from every line.
    """
    if not rows or any(a not in ("left", "right") for a in colalign) or len(colalign) != len(headers):
        return None
    ncols = len(headers)
    cells = [[str(h) for h in headers]] + [[c.strip() for c in r] for r in rows]
    if any(len(r) != ncols or not all(map(_plain, r)) for r in cells):
        return None
    widths = [max([len(cells[0][c]) + _PAD] + [len(r[c]) for r in cells[1:]]) for c in range(ncols)]
    gap = " " * _GAP

    def line(row: Sequence[str]) -> str:
        return gap.join(cell.ljust(w) if a == "left" else cell.rjust(w)
                        for cell, w, a in zip(row, widths, colalign)).rstrip()

    out = [line(cells[0]), gap.join("-" * w for w in widths).rstrip()]
    out.extend(line(r) for r in cells[1:])
    return "\n".join(out)


def tabulate_simple(rows: Sequence[Sequence[str]], headers: Sequence[str], colalign: Sequence[str],
                    tablefmt: str = "simple") -> str:
    """``tabulate(rows, headers, tablefmt, disable_numparse=True, colalign)``: laid out
    here (:func:`simple_table`) when it can be, else by tabulate (imported then)."""
    text = simple_table(rows, headers, colalign) if tablefmt == "simple" else None
    if text is not None:
        return text
    from tabulate import tabulate

    out: Any = tabulate([list(r) for r in rows], headers=list(headers), tablefmt=tablefmt, disable_numparse=True,
                        colalign=list(colalign))
    return str(out)
