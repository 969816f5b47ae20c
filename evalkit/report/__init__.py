"""Reports: the data object (:mod:`.model`), significance tests (:mod:`.stats`),
format-neutral views (:mod:`.views`), the formats (:mod:`.text`: terminal and Markdown;
:mod:`.csv_out`; :mod:`.json_out`; :mod:`.latex`; :mod:`.html` with the plots of
:mod:`.plots`), user-string escaping per format (:mod:`.escape`), the registry of
formats (:mod:`.render`) and the file writer (:mod:`.write`).

A :class:`Report` is data; rendering and writing are functions of it: render one
format with :func:`evalkit.report.render.render` ``(report, fmt)`` (the submodule keeps
its name), write files with :func:`write_report` ``(report, directory, formats)``.
(``Report.render`` and ``Report.write`` are deprecated forwards to them.)"""

import importlib
from typing import TYPE_CHECKING, Any

#: public name -> submodule that defines it, imported on first use (PEP 562): printing
#: one table (``evalkit eval``, :mod:`.text`) does not import the statistics, the
#: renderers or the file writer.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("Agreement", "BaselineChange", "PairAgreement", "Report", "flavour_agreement"), "model"),
    **dict.fromkeys(("RENDERERS", "register_renderer", "to_csv", "to_html", "to_json", "to_latex", "to_markdown",
                     "to_table", "to_text"), "render"),
    **dict.fromkeys(("Comparison", "FlipSignificance", "PairTest", "Significance", "StatSettings",
                     "adjust_pvalues"), "stats"),
    **dict.fromkeys(("render_files", "write_files", "write_report"), "write"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .model import Agreement, BaselineChange, PairAgreement, Report, flavour_agreement
    from .render import (RENDERERS, register_renderer, to_csv, to_html, to_json, to_latex, to_markdown, to_table,
                         to_text)
    from .stats import Comparison, FlipSignificance, PairTest, Significance, StatSettings, adjust_pvalues
    from .write import render_files, write_files, write_report

__all__ = [
    "Agreement", "BaselineChange", "Comparison", "FlipSignificance", "PairAgreement", "PairTest", "RENDERERS",
    "Report", "Significance", "StatSettings", "adjust_pvalues", "flavour_agreement", "register_renderer",
    "render_files", "to_csv", "to_html", "to_json", "to_latex", "to_markdown", "to_table", "to_text",
    "write_files", "write_report",
]
