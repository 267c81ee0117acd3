"""The dashboard's SQLite store: games as event logs, launches, overrides and the audit trail.

One connection per store, guarded by a lock, in WAL mode with `synchronous=FULL`: every write is
committed before the caller goes on. `transaction()` groups writes that stand or fall together (a
game event, the override it carries out, the launch rows' links to the engine). Clips and snapshots
are files in the data folder beside the database; rows only hold their relative paths.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    created TEXT NOT NULL,
    config TEXT NOT NULL,
    autoplay INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'playing'
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    who TEXT NOT NULL,
    created TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    error TEXT
);
CREATE INDEX IF NOT EXISTS events_game ON events(game_id, id);
CREATE TABLE IF NOT EXISTS launches (
    id INTEGER PRIMARY KEY,
    game_id INTEGER REFERENCES games(id),
    engine_launch INTEGER,
    created TEXT NOT NULL,
    source TEXT NOT NULL,
    launcher TEXT,
    launch_mode TEXT,
    bounces_needed INTEGER,
    verdict TEXT,
    machine_outcome TEXT NOT NULL,
    snapshot TEXT,
    clip_dir TEXT,
    clip_frames INTEGER NOT NULL DEFAULT 0,
    clip_fps REAL,
    clip_webm TEXT,
    clip_error TEXT,
    counted INTEGER NOT NULL DEFAULT 0,
    not_counted_reason TEXT,
    review TEXT
);
CREATE TABLE IF NOT EXISTS overrides (
    id INTEGER PRIMARY KEY,
    launch_id INTEGER NOT NULL REFERENCES launches(id),
    action TEXT NOT NULL,
    target_id INTEGER REFERENCES overrides(id),
    outcome TEXT,
    reason TEXT NOT NULL,
    who TEXT NOT NULL,
    created TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active'
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    created TEXT NOT NULL,
    who TEXT NOT NULL,
    action TEXT NOT NULL,
    game_id INTEGER,
    launch_id INTEGER,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class StoreError(RuntimeError):
    """The database cannot be written (full disk, read-only folder...); the message says which."""


def _row(row: sqlite3.Row | None, json_fields: tuple[str, ...] = ()) -> dict[str, Any] | None:
    if row is None:
        return None
    data = dict(row)
    for field in json_fields:
        if data.get(field) is not None:
            data[field] = json.loads(data[field])
    return data


LAUNCH_JSON = ("verdict", "machine_outcome")
# columns added after the first release: (table, column, declaration), added to older databases on open
ADDED_COLUMNS = (
    ("launches", "counted", "INTEGER NOT NULL DEFAULT 0"),
    ("launches", "not_counted_reason", "TEXT"),
    ("launches", "review", "TEXT"),
)
OVERRIDE_JSON = ("outcome",)


class Store:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        try:
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            self.added_columns = self._add_missing_columns()
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the database {self.path}: {error}") from None
        self._depth = 0  # transactions open on this connection (nested ones join the outermost)

    def _add_missing_columns(self) -> list[str]:
        """Bring an older database up to the schema; returns the "table.column" names it added."""
        added = []
        for table, column, declaration in ADDED_COLUMNS:
            present = {row["name"] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
                added.append(f"{table}.{column}")
        return added

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # -- low level --------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Every write inside is committed together, or (on any exception) none of them.

        Holds the store's lock throughout, so other threads neither write nor read a half-made change.
        A transaction opened inside another joins it.
        """
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._rollback()
                raise
            self._depth = 0
            try:
                self._execute("COMMIT")
            except StoreError:
                self._rollback()
                raise

    def _rollback(self) -> None:
        if self.db.in_transaction:
            self.db.rollback()

    def _execute(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        try:
            return self.db.execute(sql, params)
        except sqlite3.OperationalError as error:
            if "disk" in str(error).lower() or "full" in str(error).lower():
                raise StoreError(f"the disk holding {self.path} is full: nothing was recorded") from None
            raise StoreError(f"cannot write to {self.path}: {error}") from None

    def _write(self, sql: str, params: tuple = ()) -> int:
        with self.lock:
            return int(self._execute(sql, params).lastrowid or 0)

    def _all(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self.lock:
            return list(self.db.execute(sql, params).fetchall())

    def _one(self, sql: str, params: tuple = ()) -> sqlite3.Row | None:
        with self.lock:
            return self.db.execute(sql, params).fetchone()

    # -- games and their events ---------------------------------------------------------------
    def create_game(self, name: str, config: dict, autoplay: bool = False) -> int:
        return self._write(
            "INSERT INTO games(name, created, config, autoplay) VALUES (?,?,?,?)",
            (name, now(), json.dumps(config), int(autoplay)),
        )

    def game(self, game_id: int) -> dict | None:
        return _row(self._one("SELECT * FROM games WHERE id=?", (game_id,)), ("config",))

    def games(self) -> list[dict]:
        return [_row(r, ("config",)) for r in self._all("SELECT * FROM games ORDER BY id DESC")]

    def set_game_status(self, game_id: int, status: str) -> None:
        self._write("UPDATE games SET status=? WHERE id=?", (status, game_id))

    def append_event(self, game_id: int, kind: str, payload: dict, who: str, status: str = "pending") -> int:
        """Write an event: 'pending' when the engine applies it after the commit, 'applied' inside the
        transaction that also holds the engine's change (see `GameService.record`)."""
        return self._write(
            "INSERT INTO events(game_id, kind, payload, who, created, status) VALUES (?,?,?,?,?,?)",
            (game_id, kind, json.dumps(payload), who, now(), status),
        )

    def launch_was_played(self, launch_id: int) -> bool:
        """True when an applied event made this launch row the outcome of an engine launch."""
        return self._one("SELECT 1 FROM events WHERE kind='launch' AND status='applied' "
                         "AND json_extract(payload, '$.launch_id')=?", (launch_id,)) is not None

    def mark_event(self, event_id: int, status: str, error: str | None = None) -> None:
        self._write("UPDATE events SET status=?, error=? WHERE id=?", (status, error, event_id))

    def events(self, game_id: int, statuses: tuple[str, ...] = ("applied", "pending")) -> list[dict]:
        marks = ",".join("?" for _ in statuses)
        rows = self._all(
            f"SELECT * FROM events WHERE game_id=? AND status IN ({marks}) ORDER BY id", (game_id, *statuses)
        )
        return [_row(r, ("payload",)) for r in rows]

    # -- launches -----------------------------------------------------------------------------
    def add_launch(self, **fields: Any) -> int:
        fields.setdefault("created", now())
        for key in LAUNCH_JSON:
            if key in fields and fields[key] is not None:
                fields[key] = json.dumps(fields[key])
        names = ",".join(fields)
        marks = ",".join("?" for _ in fields)
        return self._write(f"INSERT INTO launches({names}) VALUES ({marks})", tuple(fields.values()))

    def update_launch(self, launch_id: int, **fields: Any) -> None:
        for key in LAUNCH_JSON:
            if key in fields and fields[key] is not None:
                fields[key] = json.dumps(fields[key])
        sets = ",".join(f"{name}=?" for name in fields)
        self._write(f"UPDATE launches SET {sets} WHERE id=?", (*fields.values(), launch_id))

    def launch(self, launch_id: int) -> dict | None:
        return _row(self._one("SELECT * FROM launches WHERE id=?", (launch_id,)), LAUNCH_JSON)

    def launches(self, game_id: int | None = None) -> list[dict]:
        if game_id is None:
            rows = self._all("SELECT * FROM launches ORDER BY id")
        else:
            rows = self._all("SELECT * FROM launches WHERE game_id=? ORDER BY id", (game_id,))
        return [_row(r, LAUNCH_JSON) for r in rows]

    def launch_links(self, game_id: int) -> list[dict]:
        """Each launch row of a game with what links it to the engine: id, counted, engine_launch, reason."""
        rows = self._all("SELECT id, counted, engine_launch, not_counted_reason FROM launches WHERE game_id=? "
                         "ORDER BY id", (game_id,))
        return [dict(r) for r in rows]

    def launch_needing_review(self, game_id: int) -> dict | None:
        """The first counted launch of a game whose disputed call waits for the referee."""
        return _row(self._one("SELECT * FROM launches WHERE game_id=? AND counted=1 AND review='needed' "
                              "ORDER BY id LIMIT 1", (game_id,)), LAUNCH_JSON)

    # -- overrides ----------------------------------------------------------------------------
    def add_override(self, launch_id: int, action: str, outcome: dict | None, reason: str, who: str,
                     target_id: int | None = None, status: str | None = None) -> int:
        """Record an override (or a withdrawal) and retire the one it replaces, in one transaction."""
        with self.transaction():
            if target_id is not None and status != "refused":
                self._write("UPDATE overrides SET status=? WHERE id=?",
                            ("withdrawn" if action == "withdraw" else "overruled", target_id))
            return self._write(
                "INSERT INTO overrides(launch_id, action, target_id, outcome, reason, who, created, status) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (launch_id, action, target_id, json.dumps(outcome) if outcome else None, reason, who, now(),
                 status or ("active" if action != "withdraw" else "record")),
            )

    def set_override_status(self, override_id: int, status: str) -> None:
        self._write("UPDATE overrides SET status=? WHERE id=?", (status, override_id))

    def overrides(self, launch_id: int) -> list[dict]:
        rows = self._all("SELECT * FROM overrides WHERE launch_id=? ORDER BY id", (launch_id,))
        return [_row(r, OVERRIDE_JSON) for r in rows]

    def override(self, override_id: int) -> dict | None:
        return _row(self._one("SELECT * FROM overrides WHERE id=?", (override_id,)), OVERRIDE_JSON)

    # -- audit trail and settings ---------------------------------------------------------------
    def audit(self, who: str, action: str, detail: dict, game_id: int | None = None,
              launch_id: int | None = None) -> int:
        return self._write(
            "INSERT INTO audit(created, who, action, game_id, launch_id, detail) VALUES (?,?,?,?,?,?)",
            (now(), who, action, game_id, launch_id, json.dumps(detail)),
        )

    def audit_trail(self, game_id: int | None = None, launch_id: int | None = None, limit: int = 200) -> list[dict]:
        sql, params = "SELECT * FROM audit", []
        clauses = []
        if game_id is not None:
            clauses.append("game_id=?")
            params.append(game_id)
        if launch_id is not None:
            clauses.append("launch_id=?")
            params.append(launch_id)
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(limit)
        return [_row(r, ("detail",)) for r in self._all(sql, tuple(params))]

    def get_setting(self, key: str, default: Any = None) -> Any:
        row = self._one("SELECT value FROM settings WHERE key=?", (key,))
        return json.loads(row["value"]) if row else default

    def set_setting(self, key: str, value: Any) -> None:
        self._write("INSERT INTO settings(key, value) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (key, json.dumps(value)))
