"""Conformance entries, one module per library module: ``entries/<module>.py`` holds the
entries of the presets ``evalkit/libraries/<module>.py`` registers (checked by
``test_conformance.py::test_entries_live_beside_their_library``)."""
