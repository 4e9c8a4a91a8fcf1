"""queue.json (the queue before its database, format 1) imported once into queue.db.

The import runs in the transaction that makes the database, so it happens once (a second
process finds the database made). queue.json and its .bak are then renamed to
`*.imported` and kept. A queue.json whose checksum fails is read from its .bak; when neither
holds, the jobs that can be read are imported, the files are kept in queue/damaged/ and every
queue command says so (queue_db.notes). A job the store refuses is imported as it was and
refused, with its reason, at every read: nothing of the user's is dropped silently.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from app.pipeline.queue import db as queue_db
from app.pipeline.queue.records import QueuedJob, verify_queue

LEGACY_FILE = "queue.json"
LEGACY_BACKUP = "queue.json.bak"
IMPORTED = ".imported"
MAX_LEGACY_BYTES = 1024 * 1024 * 1024  # read at most this much of a queue.json


def legacy_files(folder: Path) -> list[Path]:
    return [p for p in (folder / LEGACY_FILE, folder / LEGACY_BACKUP) if os.path.lexists(p)]


def _read(path: Path) -> bytes | None:
    from app.core.safe_files import SafeFileError, read_bytes

    try:
        return read_bytes(path, limit=MAX_LEGACY_BYTES)
    except (SafeFileError, OSError):
        return None


def _lenient(raw: bytes | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("jobs"), list) else None


def import_legacy(conn: sqlite3.Connection, folder: Path) -> tuple[str, int] | None:
    """Imports queue.json into the new database (inside the caller's transaction). Returns
    ("ok" | "damaged", jobs imported), or None when there was no queue.json."""
    files = legacy_files(folder)
    if not files:
        return None
    raws = {p: _read(p) for p in files}
    data, kind = None, "damaged"
    for path in files:
        raw = raws[path]
        good = None if raw is None else verify_queue(raw)
        if good is not None:
            data, kind = good, "ok" if path.name == LEGACY_FILE else "damaged"
            break
    if data is None:
        data = next((d for d in (_lenient(raws[p]) for p in files) if d is not None), None)
    jobs: list[Any] = [] if data is None else data["jobs"]
    rows: list[queue_db.Encoded] = []
    taken: set[str] = set()
    for n, entry in enumerate(jobs):
        try:
            rows.append(queue_db.encode(QueuedJob.from_json(entry)))
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            raw_id = entry.get("id") if isinstance(entry, dict) else None
            row_id = raw_id if isinstance(raw_id, str) and raw_id else f"legacy-{n + 1}"
            rows.append(queue_db.encode_raw(row_id, entry))
        while rows[-1].id in taken:  # a duplicate id: kept, refused (its id is not its job's)
            rows[-1] = queue_db.Encoded(rows[-1].id + "~", *_rest(rows[-1]))
        taken.add(rows[-1].id)
    queue_db.insert(conn, rows, 0)
    if data is not None and isinstance(data.get("paused"), bool):
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'paused'", ("1" if data["paused"] else "0",)
        )
    return kind, len(rows)


def _rest(row: queue_db.Encoded) -> tuple[bytes, str, int, str]:
    return row.doc, row.sha256, row.open, row.files


def put_aside(folder: Path, kind: str, count: int) -> None:
    """After the import's commit: queue.json kept as *.imported (or in damaged/ with a note)."""
    files = legacy_files(folder)
    if not files:
        return
    if kind == "ok":
        for path in files:
            os.replace(path, path.with_name(path.name + IMPORTED))
        return
    where = queue_db.aside_folder(folder)
    for path in files:
        os.replace(path, where / path.name)
    queue_db.write_note(where, "legacy", count)
