"""Reports: the data object (:mod:`.model`), renderers (:mod:`.render`) and the
atomic file writer (:mod:`.write`).

(The submodule :mod:`evalkit.report.render` keeps its name; render one format with
:meth:`Report.render`.)"""

from .model import Agreement, BaselineChange, PairAgreement, Report, flavour_agreement
from .render import RENDERERS, register_renderer, to_csv, to_json, to_markdown, to_table, to_text
from .write import render_files, write_files, write_report

__all__ = [
    "Agreement", "BaselineChange", "PairAgreement", "RENDERERS", "Report", "flavour_agreement",
    "register_renderer", "render_files", "to_csv", "to_json", "to_markdown", "to_table",
    "to_text", "write_files", "write_report",
]
