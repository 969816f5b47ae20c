"""The results store: an SQLite database (standard library :mod:`sqlite3`) of per-query
values, one file per project.

Every stored value is keyed by what it depends on: the SHA-256 of the qrels file, of
the run file and of the subtopic qrels (``""`` without), the measure (the canonical
flavour string, or ``judged@k``), the kind (``value``; ``low`` / ``high``: the value
under the pessimistic / optimistic ordering of tied scores; ``judged``: judged@k) and
the evalkit version (with the origin of every plugin component the flavour uses). An
evaluation with the same key is never computed twice; a changed input changes the key.
Every evaluation of a config is also recorded as an *invocation*: the config's name, a
user label, the time and which stored evaluation holds each (system, flavour label,
kind) of it (``evalkit history`` reads those).

Tables (schema version :data:`SCHEMA_VERSION`, in ``PRAGMA user_version``; the file is
marked as evalkit's by ``PRAGMA application_id`` = :data:`APPLICATION_ID`)::

    meta(key PRIMARY KEY, value)                       -- 'created_by', 'created'
    evaluation(id, qrels, run, subtopics, measure, kind, version, created,
               UNIQUE(qrels, run, subtopics, measure, kind, version))
    value(evaluation, qid, value, PRIMARY KEY(evaluation, qid))  -- NULL: query left out
    invocation(id, config, label, time, version, qrels)
    result(invocation, system, flavour, canonical, kind, evaluation, position,
           PRIMARY KEY(invocation, system, flavour, kind))   -- position: the order recorded

Concurrency: the database is in WAL mode (readers never wait for a writer), every
connection waits up to :data:`BUSY_TIMEOUT` seconds for a lock, and each evaluation is
written in one ``BEGIN IMMEDIATE`` transaction with its values (``INSERT OR IGNORE``
on the unique key), so processes writing the same store at once store every value
exactly once and never see an evaluation without its values. WAL needs a local file
system (SQLite's WAL does not work over NFS and similar).

Safety: a file that is not an SQLite database, or an SQLite database of another
application (an ``application_id`` not evalkit's, or tables in a database without one),
or a store of a newer schema, is refused with :class:`StoreError` before anything is
written to it; a damaged database (SQLite's "database disk image is malformed") is
refused the same way. A store of an older schema is migrated in one transaction
(:data:`MIGRATIONS`).
"""

from __future__ import annotations

import datetime as _dt
import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from ..errors import EvalkitError

#: ``PRAGMA application_id`` of an evalkit results store (ASCII ``EVKS``).
APPLICATION_ID = 0x45564B53
#: Current schema version (``PRAGMA user_version``).
SCHEMA_VERSION = 1
#: Seconds a connection waits for another process's lock before giving up.
BUSY_TIMEOUT = 120.0
#: The store's file name when the config and the command line name none (relative to
#: the config file's directory).
DEFAULT_PATH = ".evalkit/results.sqlite"
#: The kinds of stored values.
KINDS = ("value", "low", "high", "judged")

_MAGIC = b"SQLite format 3\x00"
_CHUNK = 500  # ids per IN (...) query

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE evaluation(
    id INTEGER PRIMARY KEY,
    qrels TEXT NOT NULL, run TEXT NOT NULL, subtopics TEXT NOT NULL,
    measure TEXT NOT NULL, kind TEXT NOT NULL, version TEXT NOT NULL,
    created TEXT NOT NULL,
    UNIQUE(qrels, run, subtopics, measure, kind, version));
CREATE TABLE value(
    evaluation INTEGER NOT NULL REFERENCES evaluation(id),
    qid TEXT NOT NULL, value REAL,
    PRIMARY KEY(evaluation, qid)) WITHOUT ROWID;
CREATE TABLE invocation(
    id INTEGER PRIMARY KEY, config TEXT NOT NULL, label TEXT NOT NULL,
    time TEXT NOT NULL, version TEXT NOT NULL, qrels TEXT NOT NULL);
CREATE INDEX invocation_config ON invocation(config, time);
CREATE TABLE result(
    invocation INTEGER NOT NULL REFERENCES invocation(id),
    system TEXT NOT NULL, flavour TEXT NOT NULL, canonical TEXT NOT NULL, kind TEXT NOT NULL,
    evaluation INTEGER NOT NULL REFERENCES evaluation(id), position INTEGER NOT NULL,
    PRIMARY KEY(invocation, system, flavour, kind)) WITHOUT ROWID;
"""

#: ``{version v: function(connection)}`` upgrading a store of schema ``v`` to ``v + 1``
#: inside the opening transaction (none yet: version 1 is the first).
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {}


class StoreError(EvalkitError):
    """The results store cannot be used: not an evalkit store (another file or another
    application's database), damaged, of a newer schema, or locked too long. The message
    names the file; nothing was written to it."""


class StoreUnavailableError(StoreError):
    """The store's file or directory cannot be created or written (a read-only
    directory, no permission). ``evalkit run`` then evaluates without its default store."""


@dataclass(frozen=True)
class Key:
    """What a stored evaluation depends on (see the module docstring)."""

    qrels: str
    run: str
    subtopics: str
    measure: str
    kind: str
    version: str


@dataclass(frozen=True)
class Invocation:
    """One recorded evaluation of a config: ``id``, ``config`` name, ``label``, ``time``
    (ISO 8601, UTC), evalkit ``version`` and the qrels' hash."""

    id: int
    config: str
    label: str
    time: str
    version: str
    qrels: str


def now() -> str:
    """The current time, ISO 8601 in UTC with microseconds."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")


class ResultsStore:
    """An open results store (see the module docstring); use as a context manager or
    call :meth:`close`.

    :param path: the database file; created (with its directory) when missing.
    :raises StoreError: the file is not an evalkit store, is damaged, has a newer schema
        or stays locked longer than :data:`BUSY_TIMEOUT` seconds.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        with self._errors():
            self._conn = self._open()

    # ----------------------------------------------------------------- opening
    def _refuse(self, why: str) -> StoreError:
        return StoreError(f"results store {self.path}: {why}; evalkit refuses to use it and did not change it "
                          "(give another store with --store PATH or store.path in the config, or --no-store)")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if "locked" in text or "busy" in text:
                raise StoreError(f"results store {self.path}: still locked by another process after "
                                 f"{BUSY_TIMEOUT:g} s ({text})") from None
            if "unable to open" in text or "readonly" in text:
                raise StoreUnavailableError(f"results store {self.path}: cannot be opened for writing ({text})") from None
            raise self._refuse(f"SQLite cannot use it ({text})") from None
        except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
            raise self._refuse(f"damaged or not an SQLite database ({exc})") from None

    def _open(self) -> sqlite3.Connection:
        path = self.path
        if path.exists():
            if not path.is_file():
                raise self._refuse("it is not a regular file")
            with open(path, "rb") as fh:
                head = fh.read(len(_MAGIC))
            if head and head != _MAGIC:
                raise self._refuse(f"it is not an SQLite database (it starts with {head[:8]!r})")
        else:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreUnavailableError(f"results store {path}: cannot create {path.parent} "
                                            f"({exc.strerror or exc})") from None
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        try:
            self._check(conn, write=False)  # read-only checks before anything is written
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":  # a read: no lock
                _retry(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone())
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._check(conn, write=True)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except BaseException:
            conn.close()
            raise
        return conn

    def _check(self, conn: sqlite3.Connection, write: bool) -> None:
        """Refuse a foreign or newer store; with ``write`` (inside a write transaction)
        create the schema of an empty database or migrate an older one."""
        # one statement, so one snapshot: read apart, another process's schema creation
        # could commit between the reads (tables seen, its application_id not yet)
        app, version, tables = conn.execute(
            "SELECT (SELECT application_id FROM pragma_application_id()), "
            "(SELECT user_version FROM pragma_user_version()), (SELECT count(*) FROM sqlite_master)").fetchone()
        if app == 0 and version == 0 and tables == 0:
            if write:
                for statement in filter(str.strip, _SCHEMA.split(";")):  # not executescript: it commits
                    conn.execute(statement)
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                from .._version import __version__

                conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                                 [("created_by", f"evalkit {__version__}"), ("created", now())])
            return
        if app != APPLICATION_ID:
            owner = f"application_id {app:#x}" if app else f"{tables} tables and no application_id"
            raise self._refuse(f"it is an SQLite database of another application ({owner}), "
                               "not an evalkit results store")
        if version > SCHEMA_VERSION:
            raise self._refuse(f"it has schema version {version}, newer than this evalkit's {SCHEMA_VERSION} "
                               "(written by a newer evalkit: upgrade evalkit)")
        if version < SCHEMA_VERSION and write:
            for v in range(version, SCHEMA_VERSION):
                if v not in MIGRATIONS:
                    raise self._refuse(f"no migration from schema version {v}")
                MIGRATIONS[v](conn)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> "ResultsStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"results store {self.path} is closed")
        return self._conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction (committed, or rolled back on error)."""
        with self._errors():
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # ----------------------------------------------------------------- evaluations
    def find(self, keys: Sequence[Key]) -> dict[Key, int]:
        """The stored evaluation id of every key in ``keys`` that is stored."""
        out: dict[Key, int] = {}
        with self._errors():
            for key in dict.fromkeys(keys):
                row = self.conn.execute(
                    "SELECT id FROM evaluation WHERE qrels=? AND run=? AND subtopics=? AND measure=? AND kind=? "
                    "AND version=?", (key.qrels, key.run, key.subtopics, key.measure, key.kind, key.version)
                ).fetchone()
                if row is not None:
                    out[key] = row[0]
        return out

    def values(self, ids: Sequence[int], qids: np.ndarray) -> np.ndarray:
        """Stored values of evaluations ``ids`` over ``qids``: ``float64`` ``(len(ids),
        len(qids))``, ``NaN`` for a query left out (or not stored)."""
        qids = np.asarray(qids, dtype=object).astype(str)
        order = np.argsort(qids, kind="stable")
        sorted_qids = qids[order]
        out = np.full((len(ids), len(qids)), np.nan)
        ids = list(ids)
        with self._errors():
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start:start + _CHUNK]
                rows = self.conn.execute(
                    f"SELECT evaluation, qid, value FROM value WHERE evaluation IN ({','.join('?' * len(chunk))})",
                    chunk).fetchall()
                if not rows:
                    continue
                ev, q, v = zip(*rows)
                ev_ids = np.asarray(chunk)
                ev_order = np.argsort(ev_ids)
                row_of = ev_order[np.searchsorted(ev_ids, np.asarray(ev), sorter=ev_order)] + start
                qs = np.asarray(q, dtype=str)
                pos = np.searchsorted(sorted_qids, qs)
                pos = np.minimum(pos, len(sorted_qids) - 1)
                ok = sorted_qids[pos] == qs
                out[row_of[ok], order[pos[ok]]] = np.asarray(v, dtype=np.float64)[ok]
        return out

    def put(self, items: Iterable[tuple[Key, np.ndarray]], qids: np.ndarray) -> dict[Key, int]:
        """Store every ``(key, values)`` (``values``: ``float64`` ``(len(qids),)``, ``NaN``
        stored as ``NULL``) in one transaction; a key stored meanwhile by another process
        is kept as it is. Returns the evaluation id of every key."""
        qid_list = np.asarray(qids, dtype=object).astype(str).tolist()
        created = now()
        out: dict[Key, int] = {}
        with self._write() as conn:
            for key, vals in items:
                k = (key.qrels, key.run, key.subtopics, key.measure, key.kind, key.version)
                cur = conn.execute("INSERT OR IGNORE INTO evaluation(qrels, run, subtopics, measure, kind, version, "
                                   "created) VALUES (?, ?, ?, ?, ?, ?, ?)", (*k, created))
                if cur.rowcount == 1:
                    eid = cur.lastrowid
                    assert eid is not None  # the row just inserted
                    v = np.asarray(vals, dtype=np.float64)
                    # SQLite binds a NaN as NULL (sqlite3_bind_double)
                    conn.executemany("INSERT INTO value(evaluation, qid, value) VALUES (?, ?, ?)",
                                     zip([eid] * len(qid_list), qid_list, v.tolist()))
                else:  # stored by another process since find(): its values are complete
                    eid = conn.execute("SELECT id FROM evaluation WHERE qrels=? AND run=? AND subtopics=? AND "
                                       "measure=? AND kind=? AND version=?", k).fetchone()[0]
                out[key] = eid
        return out

    # ----------------------------------------------------------------- invocations
    def record(self, config: str, label: str, version: str, qrels: str,
               rows: Sequence[tuple[str, str, str, str, int]], time: str | None = None) -> int:
        """Record an evaluation of ``config`` under ``label``; ``rows`` are ``(system,
        flavour label, canonical flavour, kind, evaluation id)``. Returns its id."""
        with self._write() as conn:
            cur = conn.execute("INSERT INTO invocation(config, label, time, version, qrels) VALUES (?, ?, ?, ?, ?)",
                               (config, label, time or now(), version, qrels))
            inv = cur.lastrowid
            assert inv is not None  # the row just inserted
            conn.executemany("INSERT INTO result(invocation, system, flavour, canonical, kind, evaluation, position) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)", [(inv, *r, i) for i, r in enumerate(rows)])
        return inv

    def invocations(self, config: str | None = None) -> list[Invocation]:
        """Recorded invocations (of ``config``, or of every config), oldest first."""
        sql = "SELECT id, config, label, time, version, qrels FROM invocation"
        args: tuple = ()
        if config is not None:
            sql += " WHERE config=?"
            args = (config,)
        with self._errors():
            return [Invocation(*r) for r in self.conn.execute(sql + " ORDER BY time, id", args)]

    def configs(self) -> list[str]:
        """Names of the configs with a recorded invocation, by first invocation."""
        with self._errors():
            return [r[0] for r in self.conn.execute(
                "SELECT config FROM invocation GROUP BY config ORDER BY min(time), min(id)")]

    def latest_per_label(self, config: str) -> list[Invocation]:
        """The latest invocation of ``config`` for each label, oldest label first (a
        label's place is the time of its latest invocation)."""
        latest: dict[str, Invocation] = {}
        for inv in self.invocations(config):
            latest.pop(inv.label, None)
            latest[inv.label] = inv
        return list(latest.values())

    def results(self, invocation: int) -> list[tuple[str, str, str, str, int]]:
        """``(system, flavour label, canonical, kind, evaluation id)`` of an invocation,
        in the order recorded."""
        with self._errors():
            return list(self.conn.execute(
                "SELECT system, flavour, canonical, kind, evaluation FROM result WHERE invocation=? ORDER BY position",
                (invocation,)))

    def qids(self, ids: Sequence[int]) -> np.ndarray:
        """The sorted distinct query ids stored for evaluations ``ids`` (``object``)."""
        out: set[str] = set()
        ids = list(ids)
        with self._errors():
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start:start + _CHUNK]
                out.update(r[0] for r in self.conn.execute(
                    f"SELECT DISTINCT qid FROM value WHERE evaluation IN ({','.join('?' * len(chunk))})", chunk))
        return np.array(sorted(out), dtype=object)

    def counts(self) -> dict[str, int]:
        """Rows per table (``evaluation``, ``value``, ``invocation``, ``result``)."""
        with self._errors():
            return {t: self.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # noqa: S608 - fixed names
                    for t in ("evaluation", "value", "invocation", "result")}


def _retry(fn: Any, timeout: float | None = None, pause: float = 0.05) -> Any:
    """``fn()``, retried for up to ``timeout`` seconds (default :data:`BUSY_TIMEOUT`)
    while SQLite says the database is locked (a journal-mode change is not covered by
    the busy timeout)."""
    deadline = time.monotonic() + (BUSY_TIMEOUT if timeout is None else timeout)
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
