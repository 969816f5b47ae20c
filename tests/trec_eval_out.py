"""A tiny parser for trec_eval's output (``out.*`` files in trec_eval's test suite).

Each line is ``measure<whitespace>\\tqid\\tvalue`` (the measure name is padded with
spaces to 22 characters); ``qid`` is ``all`` for the mean over queries.
"""

from __future__ import annotations

from pathlib import Path


def parse_trec_eval_output(path: str | Path) -> dict[tuple[str, str], str]:
    """``{(measure, qid): value_text}`` for every line of a trec_eval output file.

    Values are kept as text (``runid`` has a string value); use :func:`values` for
    the numeric ones.

    :raises ValueError: a line does not have three tab-separated fields, or a
        ``(measure, qid)`` pair occurs twice.
    """
    out: dict[tuple[str, str], str] = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{path}:{number}: expected 'measure\\tqid\\tvalue', got {line!r}")
        measure, qid, value = (p.strip() for p in parts)
        key = (measure, qid)
        if key in out:
            raise ValueError(f"{path}:{number}: {key} occurs twice")
        out[key] = value
    return out


def values(path: str | Path) -> dict[tuple[str, str], float]:
    """Numeric lines only: ``{(measure, qid): float}``."""
    out = {}
    for key, text in parse_trec_eval_output(path).items():
        try:
            out[key] = float(text)
        except ValueError:
            continue
    return out
