"""Content hashes of input files and the label of a stored evaluation.

* :func:`file_digest` -- SHA-256 of a file's bytes, read in 1 MiB blocks
  (:func:`hashlib.file_digest` on Python 3.11+), so a 10 GB run costs no memory; a
  gzipped file is hashed as stored (compressed bytes). A named pipe or a device is not
  hashed (reading it would consume it): ``None``, and its evaluations are not stored.
* :func:`default_label` -- ``git describe --always --dirty`` run in the config's
  directory when it lies in a git work tree, else today's date (UTC, ``YYYY-MM-DD``).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import shutil
import stat
import subprocess
from pathlib import Path

#: Bytes read at a time while hashing.
BLOCK = 1 << 20


def file_digest(path: str | os.PathLike) -> str | None:
    """``"sha256:<64 hex digits>"`` of the bytes of the regular file ``path``; ``None``
    when ``path`` is not a regular file (a FIFO or a device: hashing would consume it).
    An ``irds:DATASET_ID`` source (qrels by ir_datasets id) is hashed by its judgments
    as ir_datasets gives them (:func:`judgments_digest`), so a changed local copy of the
    dataset is not mistaken for the stored one.

    :raises OSError: the file cannot be opened or read.
    :raises DatasetError: an ``irds:`` source cannot be read.
    """
    from ..ecosystem.ir_datasets import is_dataset_id

    if is_dataset_id(path):
        return judgments_digest(str(path))
    with open(path, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        if hasattr(hashlib, "file_digest"):  # Python 3.11+
            digest = hashlib.file_digest(fh, "sha256")
        else:  # pragma: no cover - Python 3.10
            digest = hashlib.sha256()
            for block in iter(lambda: fh.read(BLOCK), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()


def judgments_digest(source: str) -> str:
    """``"sha256:<hex>"`` of an ``irds:`` source's judgments: query ids, docnos and
    grades in the order ir_datasets gives them (``qrels_iter``); computed over the joined
    columns, not per judgment in Python."""
    from ..ecosystem.ir_datasets import read_qrels

    qrels = read_qrels(source)
    digest = hashlib.sha256(b"irds-qrels\0")
    for column in (qrels.qid, qrels.docno):
        digest.update("\0".join(map(str, column)).encode("utf-8", "surrogatepass"))
        digest.update(b"\1")
    digest.update(qrels.grade.astype("<f8").tobytes())
    return "sha256:" + digest.hexdigest()


def today() -> str:
    """Today's date in UTC, ``YYYY-MM-DD``."""
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


def git_label(directory: str | os.PathLike, timeout: float = 10.0) -> str | None:
    """``git describe --always --dirty`` in ``directory``; ``None`` when git is not
    installed, ``directory`` is not in a git work tree, or git fails."""
    git = shutil.which("git")
    if git is None:
        return None
    try:
        proc = subprocess.run([git, "describe", "--always", "--dirty"], cwd=Path(directory),
                              capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    label = proc.stdout.strip()
    return label if proc.returncode == 0 and label else None


def default_label(directory: str | os.PathLike) -> str:
    """The label of an evaluation when none is given: :func:`git_label` of
    ``directory``, else :func:`today`."""
    return git_label(directory) or today()
