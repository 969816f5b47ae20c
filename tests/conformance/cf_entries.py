"""Every conformance entry, collected from ``entries/<module>.py``: one module per library
module ``evalkit/libraries/<module>.py``, holding the entries of the presets it registers
(``test_conformance.py::test_entries_live_beside_their_library`` checks the pairing).
What the entries share (:class:`~cf_base.Entry`, the datasets) is in ``cf_base.py``.

Adding a library is its module under ``evalkit/libraries/`` and an ``entries/`` module of
the same name with its ``ENTRIES``; nothing here changes.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from cf_base import Entry

ENTRIES_DIR = Path(__file__).resolve().parent / "entries"

#: ``{module: [Entry, ...]}``, modules sorted by name
BY_MODULE: dict[str, list[Entry]] = {
    info.name: importlib.import_module(f"entries.{info.name}").ENTRIES
    for info in sorted(pkgutil.iter_modules([str(ENTRIES_DIR)]), key=lambda i: i.name)
}

ENTRIES: list[Entry] = [entry for entries in BY_MODULE.values() for entry in entries]
