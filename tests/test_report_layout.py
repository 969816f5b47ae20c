""":func:`evalkit.report.layout.simple_table` lays a table out exactly as tabulate's
``"simple"`` format does (the reference: ``evalkit eval`` prints its table without
importing tabulate), and leaves to tabulate what it does not lay out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tabulate import tabulate

from evalkit.report.layout import fit_table, simple_table, tabulate_simple

# printable ASCII, spaces included (tabulate strips them around a cell)
CELL = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=14)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[list[str]], list[str], list[str]]:
    ncols = draw(st.integers(1, 5))
    headers = draw(st.lists(CELL, min_size=ncols, max_size=ncols))
    rows = draw(st.lists(st.lists(CELL, min_size=ncols, max_size=ncols), min_size=1, max_size=6))
    align = draw(st.lists(st.sampled_from(["left", "right"]), min_size=ncols, max_size=ncols))
    return rows, headers, align


@settings(max_examples=300, deadline=None)
@given(tables())
def test_simple_table_equals_tabulate(table: tuple[list[list[str]], list[str], list[str]]) -> None:
    rows, headers, align = table
    expected = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True, colalign=align)
    assert simple_table(rows, headers, align) == expected


def test_eval_table_equals_tabulate() -> None:
    """The quick start's table, as ``evalkit eval`` prints it."""
    rows = [["system_a", "0.7749", "0.6510"], ["system_b", "0.8063", "0.7200"]]
    headers = ["run", "trec_eval.ndcg_cut@10", "ndcg(gain=exp2,discount=log2,idcg=judged,ties=average)@5"]
    text = simple_table(rows, headers, ["left"] * 3)
    assert text == tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True, colalign=["left"] * 3)
    assert text.splitlines()[2] == "system_a  0.7749                   0.6510"


@pytest.mark.parametrize("rows, headers, align", [
    ([["日本語", "1"]], ["run", "x"], ["left", "left"]),  # wide characters: tabulate measures them (wcwidth)
    ([["a\nb", "1"]], ["run", "x"], ["left", "left"]),  # a multi-line cell
    ([["a", "1"]], ["run", "x\ny"], ["left", "left"]),  # a folded header
    ([["a", "1"]], ["run", "x"], ["left", "center"]),
    ([], ["run", "x"], ["left", "left"]),
])
def test_other_tables_go_to_tabulate(rows: list[list[str]], headers: list[str], align: list[str]) -> None:
    assert simple_table(rows, headers, align) is None
    assert tabulate_simple(rows, headers, align) == tabulate(rows, headers=headers, tablefmt="simple",
                                                            disable_numparse=True, colalign=align)


def test_fit_table_blocks_equal_tabulate() -> None:
    """Split into blocks by width, each block as tabulate lays it out."""
    rows = [["a", *(str(i) for i in range(10))], ["bb", *(str(10 * i) for i in range(10))]]
    headers = ["system", *(f"c{i}" for i in range(10))]
    align = ["left"] + ["right"] * 10
    blocks = fit_table(rows, headers, align, 30).split("\n\n")
    assert len(blocks) > 1
    shown = []
    for block in blocks:
        picked = [headers.index(h) for h in block.splitlines()[0].split()]
        assert picked[0] == 0
        shown += picked[1:]
        assert block == tabulate([[r[c] for c in picked] for r in rows], headers=[headers[c] for c in picked],
                                 tablefmt="simple", disable_numparse=True, colalign=[align[c] for c in picked])
    assert shown == list(range(1, 11))


@pytest.mark.parametrize("columns", [None, "120", "33", "0", "-4", "wide", " 90 ", ""])
@pytest.mark.parametrize("terminal", [None, 100, 0, "closed", "none"])
def test_terminal_columns_equals_shutil(columns: str | None, terminal: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`terminal_columns` (the tables' width and argparse's help width, read
    without importing shutil) gives ``shutil.get_terminal_size().columns`` for every
    ``COLUMNS`` (unset, positive, zero, negative, not a number) and standard output (not
    a terminal, a terminal 100 wide or reporting width 0, closed, ``None``)."""
    import os
    import shutil
    import sys

    from evalkit.report.layout import terminal_columns, terminal_width

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    opened = []
    if terminal is None:
        stdout = open(os.devnull, "w")
        opened.append(stdout)
    elif terminal == "none":
        stdout = None
    elif terminal == "closed":
        stdout = open(os.devnull, "w")
        stdout.close()
    else:
        if not hasattr(os, "openpty"):
            pytest.skip("no pseudo-terminals here")
        import fcntl
        import struct
        import termios

        main_fd, child_fd = os.openpty()
        fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, terminal, 0, 0))
        stdout = os.fdopen(child_fd, "w")
        opened += [stdout, os.fdopen(main_fd, "rb")]
    monkeypatch.setattr(sys, "__stdout__", stdout)
    try:
        expected = shutil.get_terminal_size().columns
        assert terminal_columns() == expected
        assert terminal_width() == max(40, expected)
        if columns is None and terminal == 100:
            assert expected == 100  # the terminal's own width was read
    finally:
        for f in opened:
            f.close()
