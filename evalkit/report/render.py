"""Rendering a :class:`~evalkit.report.model.Report`: the registry of output formats.

A report is rendered in two layers:

* :mod:`evalkit.report.views` -- format-neutral views: the data a table shows (the
  values table with its best-per-column mask and significance directions, the
  agreement matrix, the header facts, the significance rows), computed once;
* the formats, which lay the views out and escape every user string
  (:mod:`evalkit.report.escape`): :mod:`.text` (terminal text, Markdown),
  :mod:`.csv_out`, :mod:`.json_out`, :mod:`.latex`, :mod:`.html`.

Renderers are pure functions of the report that return ``{file name: text}``,
registered by format name in :data:`RENDERERS`; :mod:`evalkit.report.write` renders
every requested format in memory and then writes the files. Another format is one
more :func:`register_renderer` call.

The text/Markdown/CSV/JSON functions are re-exported here under their historical
names (``evalkit.report.render.to_csv`` ...).
"""

from __future__ import annotations

from typing import Any, Callable, TYPE_CHECKING

from ..errors import ReportError
from .csv_out import FLIPS_COLUMNS, STATISTICS_COLUMNS, csv_files, flips_csv, per_query_csv, statistics_csv, to_csv
from .html import html_files, to_html
from .json_out import json_files, statistics_dict, to_dict, to_json
from .latex import latex_files, to_latex
from .text import (
    agreement_matrix,
    agreement_table,
    agreement_text,
    deltas_table,
    flavour_legend,
    markdown_files,
    to_markdown,
    to_table,
    to_text,
    wtl_table,
)
from .views import (
    FLIP_MARK,
    MARKERS,
    comparison_headers,
    comparison_rows,
    flip_counts,
    flip_legend,
    marker,
    significance_legend,
)

if TYPE_CHECKING:  # pragma: no cover
    from .model import Report

Renderer = Callable[["Report"], dict[str, str]]

#: ``{format name: renderer}``; a renderer returns ``{file name: text}``.
RENDERERS: dict[str, Renderer] = {
    "markdown": markdown_files,
    "csv": csv_files,
    "json": json_files,
    "latex": latex_files,
    "html": html_files,
}


#: Every file name a registered format may write. The report writer replaces an
#: output directory only when it holds nothing else (see :mod:`evalkit.report.write`).
KNOWN_FILES: set[str] = {"report.md", "means.csv", "per_query.csv", "statistics.csv", "flips.csv", "all_pairs.csv",
                         "tie_spread.csv", "judged_at_k.csv", "unjudged_bounds.csv", "unjudged_marks.csv",
                         "report.json",
                         "report.tex", "report.html"}


def register_renderer(fmt: str, fn: Renderer | None = None, files: Any = ()) -> Any:
    """Register ``fn`` as the renderer of output format ``fmt`` (usable as a decorator).

    :param files: the names of the files the format may write (added to
        :data:`KNOWN_FILES`, so that an output directory holding them from an earlier
        run can be replaced by a run without this format).

    :raises ReportError: ``fmt`` already has a renderer (also a :class:`ValueError`).
    """

    def deco(f: Renderer) -> Renderer:
        if fmt in RENDERERS:
            raise ReportError(f"output format {fmt!r} already has a renderer")
        RENDERERS[fmt] = f
        KNOWN_FILES.update(files)
        return f

    return deco(fn) if fn is not None else deco


def render(report: Report, fmt: str) -> dict[str, str]:
    """``{file name: text}`` for format ``fmt``.

    :raises ReportError: unknown format (the message lists the known ones; also a
        :class:`ValueError`).
    """
    try:
        fn = RENDERERS[fmt]
    except KeyError:
        raise ReportError(f"unknown output format {fmt!r} (known: {', '.join(RENDERERS)})") from None
    return fn(report)


__all__ = [
    "FLIPS_COLUMNS", "FLIP_MARK", "KNOWN_FILES", "MARKERS", "RENDERERS", "STATISTICS_COLUMNS", "agreement_matrix",
    "agreement_table", "agreement_text", "comparison_headers", "comparison_rows", "deltas_table",
    "flavour_legend", "flip_counts", "flip_legend", "flips_csv", "marker", "per_query_csv", "register_renderer",
    "render", "significance_legend", "statistics_csv", "statistics_dict", "to_csv", "to_dict", "to_html",
    "to_json", "to_latex", "to_markdown", "to_table", "to_text", "wtl_table",
]
