"""The results store of ``evalkit run``: per-query values kept in an SQLite file, so
that a re-run computes only what changed (:mod:`.db`, :mod:`.cached`), and read back by
``evalkit gate`` (``against: last``) and ``evalkit history``.

Where the store is: ``--store PATH`` (relative to the current directory), else the
config's ``store.path`` (relative to the config file's directory, like every path of a
config), else :data:`~.db.DEFAULT_PATH` beside the config. ``--no-store`` or
``store: false`` in the config turn it off.
"""

from __future__ import annotations

import os
from pathlib import Path

from .db import DEFAULT_PATH, SCHEMA_VERSION, Invocation, Key, ResultsStore, StoreError, StoreUnavailableError
from .hashing import default_label, file_digest
from typing import Any

__all__ = ["DEFAULT_PATH", "SCHEMA_VERSION", "Invocation", "Key", "ResultsStore", "StoreError",
           "StoreUnavailableError", "default_label", "file_digest", "implicit_store", "store_path"]


def implicit_store(cfg: Any, store: Any = None) -> bool:
    """Whether the store of ``cfg`` is the default one nobody asked for by name
    (``store=True`` or ``store: true``, no path): one that cannot be written is then
    left out (with a warning) instead of failing the evaluation."""
    setting = getattr(cfg, "store", None)
    return (store is True or (store is None and setting is True)) and not isinstance(setting, dict)


def store_path(cfg: Any, store: Any = None) -> Path | None:
    """The store file of config ``cfg`` (:class:`~evalkit.runner.Config`), or ``None``
    when the store is off.

    :param store: ``None``: as the config says (off when it has no ``store:`` section);
        ``True``: on (the config's ``store.path``, else :data:`DEFAULT_PATH` beside the
        config); ``False``: off; a path: that file (relative to the current directory).
    """
    setting = getattr(cfg, "store", None)  # None (no section), False, or {"path": ...}
    if store is False:
        return None
    if store is not None and store is not True:
        return Path(store)
    if setting is False or (store is None and setting is None):
        return None
    if isinstance(setting, dict) and "path" in setting:
        path = os.path.expanduser(setting["path"])
        return Path(path) if os.path.isabs(path) else (Path(cfg.base_dir) / path).resolve()
    return Path(cfg.base_dir) / DEFAULT_PATH
