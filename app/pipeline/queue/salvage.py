"""What a damaged queue database still holds: the rows SQLite reads (`sqlite_rows`), and a raw
scan of the file's bytes (the -wal's newest pages over the main file's) for job documents whose
sha256 is stored beside them, their position read back from the record (`scan_file`,
`scan_documents`); `merge_salvage` joins the two in queue order. A damaged header or a lost last
page loses only the rows on the damaged pages. Never writes to the damaged file; the store
(store.py `_quarantine`) copies what this finds into a new database.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import zlib
from pathlib import Path

from app.core.errors import StepwiseError
from app.core.safe_files import read_bytes
from app.pipeline.queue.db import JOB_COLUMNS, MAX_DOC_BYTES, Row, RowRefused, decode

MAX_SALVAGE_ROWS = 10_000_000


def sqlite_rows(old: Path) -> tuple[bool | None, list[tuple[int | None, Row]]]:
    """What SQLite can still read of a damaged database: paused (None when unreadable) and its
    job rows (position, (id, doc, copy, sha256)). Never writes to it."""
    uri = f"file:{old.as_posix()}?mode=ro"
    rows: list[tuple[int | None, Row]] = []
    paused: bool | None = None
    columns = f"position, {JOB_COLUMNS}"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=1.0, isolation_level=None)
    except sqlite3.Error:
        return None, rows
    try:
        try:
            found = conn.execute("SELECT value FROM meta WHERE key = 'paused'").fetchone()
            paused = None if found is None else found[0] == "1"
        except sqlite3.Error:
            paused = None
        try:
            rows = [(r[0], r[1:]) for r in conn.execute(f"SELECT {columns} FROM jobs")]
            return paused, rows
        except sqlite3.Error:
            rows = []
        try:
            last = int(conn.execute("SELECT max(rowid) FROM jobs").fetchone()[0] or 0)
        except (sqlite3.Error, TypeError, ValueError):
            return paused, rows
        for rowid in range(1, min(last, MAX_SALVAGE_ROWS) + 1):
            try:
                one = conn.execute(
                    f"SELECT {columns} FROM jobs WHERE rowid = ?", (rowid,)
                ).fetchone()
            except sqlite3.Error:
                continue
            if one is not None:
                rows.append((one[0], one[1:]))
    finally:
        conn.close()
    return paused, rows


# ---------------------------------------------------------------------------- the raw scan

ZLIB_START = re.compile(rb"\x78[\x01\x5e\x9c\xda]")  # a zlib stream (encode's level 1, others)
WAL_MAGIC = (0x377F0682, 0x377F0683)
MAX_SCAN_BYTES = 4 * 1024 * 1024 * 1024


def current_image(db: bytes, wal: bytes) -> bytes:
    """The database's pages as a reader would see them: the main file with the newest copy of
    each page the -wal holds (frames of the wal's current generation) over it. Read without
    SQLite, so a damaged header or a main file cut to 0 bytes still gives its pages."""
    if len(wal) < 32 or int.from_bytes(wal[:4], "big") not in WAL_MAGIC:
        return db
    size = int.from_bytes(wal[8:12], "big")
    if size < 512 or size > 65536 or size & (size - 1):
        return db
    salt = wal[16:24]
    pages: dict[int, bytes] = {}
    at = 32
    while at + 24 + size <= len(wal) and wal[at + 8 : at + 16] == salt:
        number = int.from_bytes(wal[at : at + 4], "big")
        pages[number] = wal[at + 24 : at + 24 + size]
        at += 24 + size
    if not pages:
        return db
    count = max(max(pages), (len(db) + size - 1) // size)
    out = bytearray(db.ljust(count * size, b"\0"))
    for number, page in pages.items():
        out[(number - 1) * size : number * size] = page
    return bytes(out)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for n in range(9):
        if at + n >= len(data):
            raise IndexError(at)
        byte = data[at + n]
        if n == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:  # the high bit clear: the varint's last byte
            return value, at + n + 1
    raise AssertionError("unreachable")


INT_SIZES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 8: 0, 9: 0}


def _position_before(data: bytes, at: int, row_id: bytes, blob_len: int) -> int | None:
    """The `position` of the row whose `doc` starts at `at`: its record (header: 7 serial types;
    body: id, position, doc, …) read back from the doc. None when no record fits."""
    for serial, size in INT_SIZES.items():
        id_start = at - size - len(row_id)
        if id_start < 0 or data[id_start : at - size] != row_id:
            continue
        for header in range(max(0, id_start - 64), id_start):
            try:
                length, end = _varint(data, header)
                if header + length != id_start:
                    continue
                types = []
                while end < id_start:
                    one, end = _varint(data, end)
                    types.append(one)
            except IndexError:
                continue
            if (
                end != id_start
                or len(types) != 7
                or types[0] != 2 * len(row_id) + 13
                or types[1] != serial
                or types[2] != 2 * blob_len + 12
            ):
                continue
            if serial in (8, 9):
                return serial - 8
            return int.from_bytes(data[at - size : at], "big", signed=True)
    return None


def scan_documents(data: bytes) -> list[tuple[int | None, Row]]:
    """Every job document the bytes hold whose sha256 is stored beside it (each row keeps its
    doc, a copy and their sha256 together): (its position when its record can be read, the row
    as `decode` takes it). Finds rows SQLite's b-tree no longer reaches (a damaged header, a
    lost last page, a main file cut to 0 bytes with its -wal there)."""
    view = memoryview(data)
    found: dict[str, tuple[int | None, Row]] = {}
    skip_to = 0
    for match in ZLIB_START.finditer(data):
        at = match.start()
        if at < skip_to:
            continue
        unzip = zlib.decompressobj()
        try:
            raw = unzip.decompress(view[at : at + MAX_DOC_BYTES], MAX_DOC_BYTES)
        except zlib.error:
            continue
        if not unzip.eof or not raw.startswith(b"{"):
            continue
        end = min(len(data), at + MAX_DOC_BYTES) - len(unzip.unused_data)
        blob = bytes(view[at:end])
        digest = hashlib.sha256(blob).hexdigest()
        if digest.encode("ascii") not in view[end : end + len(blob) + 256].tobytes():
            continue
        try:
            row_id = json.loads(raw.decode("utf-8"))["id"]
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, RecursionError):
            continue
        if not isinstance(row_id, str):
            continue
        skip_to = end
        position = _position_before(data, at, row_id.encode("utf-8"), len(blob))
        row = (row_id, blob, blob, digest)
        kept = found.get(row_id)
        if kept is None or (kept[0] is None and position is not None) or _newer(row, kept[1]):
            found[row_id] = (position, row)
    return list(found.values())


def _newer(row: Row, than: Row) -> bool:
    """A version of a job with its outcome recorded is newer than one without."""
    try:
        return decode(*row).outcome is not None and decode(*than).outcome is None
    except RowRefused:
        return False


def scan_file(db: Path) -> list[tuple[int | None, Row]]:
    """The job rows a raw scan of a database (and its -wal) finds: read before SQLite opens
    it, as SQLite drops the -wal of a 0-byte database when it opens one."""
    try:
        data = read_bytes(db, limit=MAX_SCAN_BYTES) if os.path.lexists(db) else b""
    except (OSError, StepwiseError):
        data = b""
    wal_path = db.with_name(db.name + "-wal")
    try:
        wal = read_bytes(wal_path, limit=MAX_SCAN_BYTES) if os.path.lexists(wal_path) else b""
    except (OSError, StepwiseError):
        wal = b""
    return scan_documents(current_image(data, wal))


def merge_salvage(
    scanned: list[tuple[int | None, Row]], btree_rows: list[tuple[int | None, Row]]
) -> list[Row]:
    """The rows of a damaged database: those SQLite still reads, and every other job the raw
    scan found, in queue order (rows whose position cannot be read last, by id)."""
    found: dict[str, tuple[int | None, Row]] = {row[0]: (pos, row) for pos, row in scanned}
    for pos, row in btree_rows:  # what SQLite reads is the row; a position it reads, too
        seen = found.get(row[0])
        found[row[0]] = (pos if isinstance(pos, int) else seen[0] if seen else None, row)
    ordered = sorted(found.values(), key=lambda i: (i[0] is None, i[0] or 0, i[1][0]))
    return [row for _, row in ordered]
