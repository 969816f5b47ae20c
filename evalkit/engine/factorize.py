"""Factorisation of string columns into integer codes."""

from __future__ import annotations

import numpy as np


def factorize(*columns: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Encode one or more string columns with a shared vocabulary.

    :param columns: ``object`` arrays of ``str`` (any lengths).
    :returns: ``(codes, vocab)``: one ``int64`` code array per column and the sorted
        vocabulary (``object`` array). Codes follow the byte order of the UTF-8
        strings (code-point order), the order C's ``strcmp`` gives, so comparing codes
        compares docnos as trec_eval does.
    """
    sizes = [len(c) for c in columns]
    if sum(sizes) == 0:
        return [np.empty(0, np.int64) for _ in columns], np.empty(0, dtype=object)
    joined = np.concatenate([np.asarray(c, dtype=object) for c in columns])
    vocab, inverse = np.unique(joined, return_inverse=True)
    inverse = inverse.astype(np.int64, copy=False).reshape(-1)
    out, start = [], 0
    for n in sizes:
        out.append(inverse[start : start + n])
        start += n
    return out, vocab
