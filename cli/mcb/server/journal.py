"""The durable journal: one SQLite file (WAL, synchronous=FULL) holding plans, operations, receipts, world edits
and parts. Every engine step is one transaction, so a kill leaves either the old or the new state, never half.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

JOURNAL_FILE = "journal.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS plans(
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, sha256 TEXT NOT NULL, created INTEGER NOT NULL, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS operations(
    id TEXT PRIMARY KEY, seq INTEGER NOT NULL, plan_id TEXT NOT NULL, idem_key TEXT NOT NULL, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS receipts(
    op_id TEXT NOT NULL, idx INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL, z INTEGER NOT NULL,
    expected TEXT NOT NULL, desired TEXT NOT NULL, revision INTEGER NOT NULL, PRIMARY KEY(op_id, idx));
CREATE TABLE IF NOT EXISTS blocks(
    x INTEGER NOT NULL, y INTEGER NOT NULL, z INTEGER NOT NULL, state TEXT NOT NULL, PRIMARY KEY(x, y, z))
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS parts(id TEXT PRIMARY KEY, seq INTEGER NOT NULL, payload TEXT NOT NULL);
"""


class Journal:
    def __init__(self, data_dir: Path):
        self.path = Path(data_dir) / JOURNAL_FILE
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def persist(self, *, plans=(), operations=(), receipts=(), blocks=(), parts=()) -> None:
        """Write everything given in one durable transaction.

        plans: (id, kind, sha256, created, payload_dict) · operations: (id, seq, plan_id, idem_key, payload_dict) ·
        receipts: (op_id, idx, (x,y,z), expected, desired, revision) · blocks: ((x,y,z), state) ·
        parts: (id, seq, payload_dict)
        """
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT OR REPLACE INTO plans VALUES (?,?,?,?,?)",
                    [(i, k, h, c, _dump(p)) for i, k, h, c, p in plans],
                )
                db.executemany(
                    "INSERT OR REPLACE INTO operations VALUES (?,?,?,?,?)",
                    [(i, s, p, k, _dump(d)) for i, s, p, k, d in operations],
                )
                db.executemany(
                    "INSERT OR REPLACE INTO receipts VALUES (?,?,?,?,?,?,?,?)",
                    [(o, i, x, y, z, e, d, r) for o, i, (x, y, z), e, d, r in receipts],
                )
                db.executemany(
                    "INSERT OR REPLACE INTO blocks VALUES (?,?,?,?)",
                    [(x, y, z, s) for (x, y, z), s in blocks],
                )
                db.executemany("INSERT OR REPLACE INTO parts VALUES (?,?,?)", [(i, s, _dump(p)) for i, s, p in parts])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def load(self) -> dict:
        with self._lock:
            db = self._db
            return {
                "plans": [
                    (i, k, h, c, json.loads(p))
                    for i, k, h, c, p in db.execute(
                        "SELECT id, kind, sha256, created, payload FROM plans ORDER BY created, id"
                    )
                ],
                "operations": [
                    (i, s, p, k, json.loads(d))
                    for i, s, p, k, d in db.execute(
                        "SELECT id, seq, plan_id, idem_key, payload FROM operations ORDER BY seq"
                    )
                ],
                "receipts": list(
                    db.execute(
                        "SELECT op_id, idx, x, y, z, expected, desired, revision FROM receipts ORDER BY op_id, idx"
                    )
                ),
                "blocks": list(db.execute("SELECT x, y, z, state FROM blocks")),
                "parts": [
                    (i, s, json.loads(p)) for i, s, p in db.execute("SELECT id, seq, payload FROM parts ORDER BY seq")
                ],
            }

    def integrity_check(self) -> str:
        with self._lock:
            return self._db.execute("PRAGMA integrity_check").fetchone()[0]


def _dump(payload) -> str:
    if isinstance(payload, str):  # already serialized (a plan's hashed Gson text is stored as is)
        return payload
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
