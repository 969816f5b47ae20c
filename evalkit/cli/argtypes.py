"""argparse value types shared by the commands: a bad value is a usage error
(``evalkit: error: argument --digits: ...``, status 2), never a traceback later."""

from __future__ import annotations

import argparse
from typing import Any


def int_range(low: int, high: int) -> Any:
    """An argparse ``type`` accepting an integer in ``[low, high]``.

    >>> int_range(0, 17)("4")
    4
    >>> int_range(0, 17)("-1")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: -1 is not an integer from 0 to 17
    """

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not an integer from {low} to {high}")
        return value

    parse.__name__ = "integer"
    return parse


#: Decimals printed: 0 to 17 (a float64 has at most 17 significant decimal digits).
DIGITS = int_range(0, 17)
