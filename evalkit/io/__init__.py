"""Readers and writers for TREC-format files."""

from .trec import read_qrels, read_run, read_subtopic_qrels, write_run

__all__ = ["read_qrels", "read_run", "read_subtopic_qrels", "write_run"]
