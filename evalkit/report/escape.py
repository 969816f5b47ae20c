"""Escaping user-supplied strings (run names, flavour labels, titles, qids, paths)
for the format they are written into.

Every format module passes each user string through the function of its format;
the views (:mod:`.views`) hold the strings unescaped.

* terminal text: :func:`text_escape` -- control characters and line breaks become
  visible escapes (``\\n``, ``\\x1b``), so a name cannot break a table row or send
  terminal control sequences;
* Markdown (GitHub-flavoured): :func:`md_escape` for text, :func:`md_code` for code
  spans -- no line break, ``|`` escaped in table cells, no live emphasis, link or HTML;
* CSV: :func:`csv_cell` -- a cell that a spreadsheet would read as a formula (first
  character ``= + - @``, tab or carriage return; OWASP "CSV Injection") is prefixed
  with ``'``;
* LaTeX: :func:`latex_escape` for body text, :func:`latex_comment` for ``%`` comment
  lines -- special characters escaped and line breaks made spaces, so no string can
  start a live line in ``report.tex``;
* HTML: :func:`html_escape` (:func:`html.escape` with quotes).

The regular expressions are compiled on first use (:func:`functools.cache`) and
:mod:`html` is imported by :func:`html_escape`: printing one table (``evalkit eval``)
compiles none of them when its strings are printable ASCII.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

# ----------------------------------------------------------------------------- terminal

# control characters (C0, DEL, C1), line/paragraph separators, the bidirectional
# formatting characters (U+202E RIGHT-TO-LEFT OVERRIDE shows "txt.exe" as "exe.txt":
# Trojan Source, CVE-2021-42574) and lone surrogates (no UTF-8 output can hold them)
_CONTROL = ("[" + "".join(re.escape(chr(c)) for c in (*range(0x20), *range(0x7F, 0xA0)))
            + "\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@cache
def _control_re() -> re.Pattern[str]:
    """The characters :func:`text_escape` writes as escapes (see :data:`_CONTROL`)."""
    return re.compile(_CONTROL)


@cache
def _control_but_newline_re() -> re.Pattern[str]:
    """:func:`_control_re` without the line feed (:func:`message_escape`)."""
    return re.compile(_CONTROL.replace(re.escape("\n"), "", 1))


def _plain(text: str) -> bool:
    """``text`` is printable ASCII (``' '`` to ``'~'``): none of its characters is in
    :data:`_CONTROL`, so no escaping function changes it."""
    return text.isascii() and text.isprintable()


def _visible(ch: str) -> str:
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if ch in named:
        return named[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def text_escape(text: Any) -> str:
    """``text`` for a terminal: control characters and line breaks written as escapes.

    >>> text_escape("run\\nB\\x1b[31m")
    'run\\\\nB\\\\x1b[31m'
    """
    s = str(text)
    return s if _plain(s) else _control_re().sub(lambda m: _visible(m.group(0)), s)


def message_escape(text: Any) -> str:
    """``text`` for a terminal message (an error or warning line on standard error): as
    :func:`text_escape`, but line breaks kept (a message may have several lines); the
    names it quotes (files, configs, runs) cannot send ESC sequences or reorder text.

    >>> message_escape("bad\\x1b[2J name\\u202e")
    'bad\\\\x1b[2J name\\\\u202e'
    """
    s = str(text)
    return s if _plain(s) else _control_but_newline_re().sub(lambda m: _visible(m.group(0)), s)


def _one_line(text: Any) -> str:
    """Every line break and other control character replaced by a space."""
    s = str(text)
    return s if _plain(s) else _control_re().sub(" ", s)


# ----------------------------------------------------------------------------- Markdown

# CommonMark allows a backslash before any ASCII punctuation; these are the ones that
# can start emphasis, code, links, images, HTML, entities, strikethrough or a table cell.
@cache
def _md_special_re() -> re.Pattern[str]:
    return re.compile(r"[\\`*_\[\]<>|#~&!$]|:(?=//)|(?<=www)\.|@(?=[\w-]+\.[\w-])", re.I)


def _md_sub(m: re.Match) -> str:
    s, i = m.string, m.start()
    # an underscore between two letters or digits cannot open or close emphasis
    if m.group(0) == "_" and 0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum():
        return "_"
    return "\\" + m.group(0)


def md_escape(text: Any) -> str:
    """``text`` as literal Markdown text, safe in a table cell or a heading: line breaks
    become spaces, ``\\ ` * [ ] < > | # ~ & ! $`` are backslash-escaped (``$`` would
    start math on GitHub), and ``_`` too unless it sits between two letters or digits
    (where it cannot start emphasis); GitHub's extended autolinks are broken up (the
    ``:`` of ``://``, the ``.`` of ``www.``, the ``@`` of an e-mail address), so a
    bare URL in a name is not a live link.

    >>> md_escape("see https://x.example and $a$")
    'see https\\\\://x.example and \\\\$a\\\\$'

    >>> md_escape("a|b\\n# *c*"), md_escape("trec_eval _x_")
    ('a\\\\|b \\\\# \\\\*c\\\\*', 'trec_eval \\\\_x\\\\_')
    """
    return _md_special_re().sub(_md_sub, _one_line(text))


def md_code(text: Any, table: bool = False) -> str:
    """``text`` as a Markdown code span: line breaks become spaces, the fence is one
    backtick longer than the longest run of backticks inside; in a table cell
    (``table=True``) ``|`` is escaped, as GFM splits cells before it parses code spans
    (outside a table the backslash would show).

    >>> md_code("a|b", table=True), md_code("x`y")
    ('`a\\\\|b`', '``x`y``')
    """
    s = _one_line(text)
    if table:
        s = s.replace("|", "\\|")
    longest = max((len(m) for m in re.findall("`+", s)), default=0)
    fence = "`" * (longest + 1)
    if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()):
        s = f" {s} "
    return f"{fence}{s}{fence}"


# ----------------------------------------------------------------------------- CSV

@cache
def _number_re() -> re.Pattern[str]:
    return re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def csv_cell(text: Any) -> str:
    """A user string for a CSV cell: prefixed with ``'`` when a spreadsheet would take it
    for a formula (first character ``=``, ``+``, ``-``, ``@``, tab or carriage return;
    OWASP, "CSV Injection"). A plain number such as ``-1`` stays as it is (a spreadsheet
    reads it as the number, nothing runs). Quoting is :mod:`csv`'s job.

    >>> csv_cell("=HYPERLINK(1)"), csv_cell("@SUM(A1)"), csv_cell("-1"), csv_cell("bm25")
    ("'=HYPERLINK(1)", "'@SUM(A1)", '-1', 'bm25')
    >>> csv_cell("run\\x1b]0;title\\x07")
    'run\\\\x1b]0;title\\\\x07'
    """
    s = str(text)
    if not _plain(s):  # no ESC/BEL reaches a terminal
        s = _csv_control_re().sub(lambda m: _visible(m.group(0)), s)
    if s and s[0] in "=+-@\t\r" and not _number_re().fullmatch(s):
        return "'" + s
    return s


# control characters other than tab and line breaks (which csv quotes), bidirectional
# overrides and lone surrogates: written as visible escapes (``\x1b``), as in a terminal
@cache
def _csv_control_re() -> re.Pattern[str]:
    return re.compile(_CONTROL.replace(re.escape("\n"), "", 1)
                      .replace(re.escape("\t"), "", 1).replace(re.escape("\r"), "", 1))


# ----------------------------------------------------------------------------- LaTeX

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # "[" after \\ or \midrule would be read as an optional argument
    "[": "{[}",
    "]": "{]}",
    # a few non-ASCII characters that evalkit's own texts use
    "α": r"$\alpha$",
    "τ": r"$\tau$",
    "Δ": r"$\Delta$",
    "–": "--",
    "—": "---",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "·": r"$\cdot$",
    "▲": r"$\uparrow$",
    "▼": r"$\downarrow$",
    "†": r"\textdagger{}",
    "×": r"$\times$",
}
# pdflatex with T1 fonts and utf8 input typesets ASCII and Latin-1 (U+00A0-U+00FF);
# any other character (CJK, emoji, U+202E, a lone surrogate) stops it with "Unicode
# character ... not set up for use with LaTeX": it is written as its code point
@cache
def _latex_re() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(c) for c in _LATEX_SPECIAL) + "|[^\x00-\x7f\u00a0-\u00ff]")


def _latex_char(c: str) -> str:
    """The LaTeX for one special or unsupported character (see :func:`_latex_re`)."""
    special = _LATEX_SPECIAL.get(c)
    return special if special is not None else rf"\textless{{}}U+{ord(c):04X}\textgreater{{}}"


def latex_escape(text: Any) -> str:
    """Escape ``text`` for LaTeX body text: ``\\ { } # $ % & _ ~ ^ < > |``, brackets
    (braced, so a cell starting with ``[`` is not an optional argument of ``\\\\`` or
    ``\\midrule``), the Greek letters, dashes and symbols evalkit's texts use; line
    breaks and other control characters become spaces (a blank line would end a
    paragraph inside an argument, a line break could start a live line).

    Characters pdflatex cannot typeset with T1 fonts (beyond ASCII and Latin-1: CJK,
    emoji) are written as their code point; bidirectional overrides (U+202E) and lone
    surrogates are control characters here (spaces).

    >>> print(latex_escape("50% of a_b\\n\\\\input{x}"))
    50\\% of a\\_b \\textbackslash{}input\\{x\\}
    >>> print(latex_escape("系统 é"))
    \\textless{}U+7CFB\\textgreater{}\\textless{}U+7EDF\\textgreater{} é
    """
    return _latex_re().sub(lambda m: _latex_char(m.group(0)), _one_line(text))


def latex_comment(text: Any) -> str:
    """``text`` for the rest of a ``%`` comment line: line breaks become spaces (TeX
    ignores everything else up to the end of the line).

    >>> "% " + latex_comment("title\\n\\\\input{/etc/passwd}")
    '% title \\\\input{/etc/passwd}'
    """
    return _one_line(text)


# ----------------------------------------------------------------------------- plots


def mpl_text(text: Any) -> str:
    """``text`` for a matplotlib label, legend or title: on one line, and ``$`` escaped
    so that no name is parsed as mathtext (an unbalanced ``$`` would fail the plot).

    >>> mpl_text("cost $5\\nnew")
    'cost \\\\$5 new'
    """
    return _one_line(text).replace("$", "\\$")


# ----------------------------------------------------------------------------- HTML


def html_escape(text: Any) -> str:
    """``text`` for HTML text or an attribute value (``& < > " '`` escaped).

    >>> html_escape('<b title="x">&</b>')
    '&lt;b title=&quot;x&quot;&gt;&amp;&lt;/b&gt;'
    """
    import html  # here: printing a table needs no HTML

    return html.escape(str(text), quote=True)
