"""The queue's database: one SQLite file (queue/queue.db), its rows, a damaged file moved aside.

Why SQLite (the standard library's sqlite3) and not a JSON file: every change is one
transaction (WAL journal, synchronous FULL), so an `add` of 100,000 jobs or a kill in the middle
of one leaves all of it or none, and no change rewrites the whole queue. Format 2:

    meta(key TEXT PRIMARY KEY, value TEXT)   "format" = "2", "paused" = "0" | "1"
    jobs(id TEXT PRIMARY KEY,                the job id (also the run folder's name)
         position INTEGER,                   queue order (ascending; gaps allowed)
         doc BLOB, copy BLOB,                the job (QueuedJob.to_json) as zlib'd JSON, twice:
                                             a flipped byte in one copy loses nothing
         sha256 TEXT,                        of doc (and copy): which copy is good
         open INTEGER,                       1 until an outcome is recorded (a helper index;
                                             the doc's outcome is the truth)
         files TEXT)                         the inputs/ names the job uses, space-separated
    claims(job_id TEXT PRIMARY KEY, pid INTEGER, started REAL, token TEXT)
                                             the worker running a job: its pid and its process's
                                             start time; a claim whose process is gone (or whose
                                             pid is another process now) is released

A row is read through `decode`: a copy whose checksum fails is skipped, a job whose fields are
refused (an id `..`, a NUL, an input outside inputs/, an unknown state) is a `RowRefused` with
its reason, said by every command and never run. A database SQLite finds damaged is never
written again: `quarantine` moves it (with its -wal and -shm) into queue/damaged/<time>/,
copies every row it can still read into a new database and leaves a note there, which every
queue command shows (`notices`) until the user deletes that folder. "Every row it can still
read": SQLite's b-tree and a raw scan of the file's bytes (salvage.py). queue.count beside
the database keeps how many jobs it holds: a queue known to exist (that count, or files in
inputs/) whose queue.db is empty or missing is damage (moved aside, scanned, said), and fewer
rows than counted (its -wal removed while open) is said. Deleted rows are zeroed
(secure_delete), so the scan never brings one back.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.errors import DamagedFileError, StepwiseError
from app.core.program import typed
from app.core.safe_files import open_read, read_bytes
from app.pipeline.queue.records import QueuedJob, RunProgress, job_settings_key, summary_of

DB_FILE = "queue.db"
COUNT_FILE = "queue.count"  # {"jobs": N}: how many jobs the queue holds (a queue known to exist)
DAMAGED = "damaged"
NOTE_FILE = "note.json"
DB_FORMAT = "2"
MAX_DOC_BYTES = 4 * 1024 * 1024  # one job, decompressed (a JobSpec is a few KiB)
DAMAGED_NOTE_MESSAGE = (
    "The queue's database was damaged; it was moved to {path} and {count} job(s) were salvaged "
    "from it."
)
LEGACY_NOTE_MESSAGE = (
    "The old queue file was damaged; it is kept in {path} and {count} job(s) were read from it."
)
EMPTY_NOTE_MESSAGE = (
    "The queue's database {file} was found empty (0 bytes) while the queue held {expected} "
    "job(s); what was there is kept in {path} and {count} job(s) were salvaged from it."
)
MISSING_NOTE_MESSAGE = (
    "The queue's database {file} was found missing while the queue held {expected} job(s); "
    "what was left is kept in {path} and {count} job(s) were salvaged from it."
)
LOST_NOTE_MESSAGE = (
    "The queue's database {file} holds {count} job(s) where {expected} were recorded: its -wal "
    "journal was removed or replaced while Stepwise had the queue open, and the jobs added since "
    "are lost."
)
NOTE_FIX = "Check the queue with `{command}`; once it is right, delete {path} to stop this message."

# A listing entry's outcome state and variation set, as its indexes hold them (a query uses
# the same text to be answered by the index).
STATE_OF = "(CASE WHEN json_valid(summary) THEN json_extract(summary, '$.outcome.state') END)"
SET_OF = "(CASE WHEN json_valid(summary) THEN json_extract(summary, '$.variation.set') END)"

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS jobs(id TEXT PRIMARY KEY, position INTEGER NOT NULL, "
    "doc BLOB NOT NULL, copy BLOB NOT NULL, sha256 TEXT NOT NULL, open INTEGER NOT NULL, "
    "files TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS jobs_order ON jobs(position)",
    "CREATE TABLE IF NOT EXISTS claims(job_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, "
    "started REAL NOT NULL, token TEXT NOT NULL)",
    # Helpers that answer without reading any document (issue 38, item 9): the open jobs in
    # order (claim), and `listing`: per job, what `queue list` shows and its settings key
    # (`queue add --variations` finds the seeds in use), valid only while its sha256 is the
    # job row's (a row without one, or with another, is read from its document instead).
    "CREATE INDEX IF NOT EXISTS jobs_open ON jobs(open, position)",
    "CREATE INDEX IF NOT EXISTS jobs_list ON jobs(position, id, sha256)",
    "CREATE TABLE IF NOT EXISTS listing(id TEXT PRIMARY KEY, sha256 TEXT NOT NULL, "
    "settings TEXT NOT NULL, prompt TEXT NOT NULL, seed INTEGER NOT NULL, summary TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS listing_seeds ON listing(settings, prompt, seed)",
    # The Queue dock's counts and a variation set's jobs (one guarded expression each: a
    # damaged summary is NULL here, never an error): failed ones counted, the open ones (no
    # outcome: NULL) counted per settings with one of each, a set's jobs found.
    f"CREATE INDEX IF NOT EXISTS listing_state ON listing({STATE_OF}, settings, id)",
    f"CREATE INDEX IF NOT EXISTS listing_set ON listing({SET_OF})",
)
JOB_COLUMNS = "id, doc, copy, sha256"
Row = tuple[str, bytes, bytes, str]  # a job row as `decode` takes it


class RowRefused(ValueError):
    """A stored row that is not a job this queue runs (damaged both times, or forged)."""


@dataclass(frozen=True)
class Encoded:
    id: str
    doc: bytes
    sha256: str
    open: int
    files: str
    settings: str = ""  # records.settings_key ("": none, a legacy row kept as it was)
    summary: str = ""  # records.summary_of as JSON
    prompt: str = ""
    seed: int = 0


def encode(job: QueuedJob, progress: RunProgress | None = None) -> Encoded:
    """A job's row (`progress`: its run's, kept in its listing entry with its outcome)."""
    raw = json.dumps(job.to_json(), ensure_ascii=False, sort_keys=True).encode("utf-8")
    doc = zlib.compress(raw, 1)
    files = " ".join(f.file for f in job.inputs())
    summary = json.dumps(summary_of(job, progress), ensure_ascii=False)
    return Encoded(
        job.id,
        doc,
        hashlib.sha256(doc).hexdigest(),
        int(job.outcome is None),
        files,
        job_settings_key(job),
        summary,
        job.spec.prompt,
        job.spec.seed,
    )


def listing_row(job: QueuedJob, digest: str) -> Encoded:
    """A stored job's listing entry (its row's sha256 kept as it is)."""
    summary = json.dumps(summary_of(job), ensure_ascii=False)
    return Encoded(
        job.id, b"", digest, 0, "", job_settings_key(job), summary, job.spec.prompt, job.spec.seed
    )


def put_listing(conn: sqlite3.Connection, rows: list[Encoded]) -> None:
    """The rows' listing entries (what `queue list` and the seeds in use read)."""
    conn.executemany(
        "INSERT OR REPLACE INTO listing VALUES (?, ?, ?, ?, ?, ?)",
        [(r.id, r.sha256, r.settings, r.prompt, r.seed, r.summary) for r in rows if r.summary],
    )


def encode_raw(row_id: str, data: Any) -> Encoded:
    """A legacy entry kept as it was read (refused again, with its reason, when read)."""
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, default=str).encode("utf-8")
    doc = zlib.compress(raw, 1)
    return Encoded(row_id, doc, hashlib.sha256(doc).hexdigest(), 1, "")


def decode(row_id: object, doc: object, copy: object, digest: object) -> QueuedJob:
    """The job of one row, or RowRefused saying why not."""
    blob = next(
        (
            b
            for b in (doc, copy)
            if isinstance(b, bytes) and hashlib.sha256(b).hexdigest() == digest
        ),
        None,
    )
    if blob is None:
        raise RowRefused("both stored copies are damaged")
    try:
        unzip = zlib.decompressobj()
        raw = unzip.decompress(blob, MAX_DOC_BYTES)
        if unzip.unconsumed_tail:
            raise RowRefused("the job is larger than any job Stepwise writes")
        data = json.loads(raw.decode("utf-8"))
    except (zlib.error, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RowRefused(f"the job cannot be read ({type(exc).__name__})") from exc
    try:
        job = QueuedJob.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise RowRefused(_reason(exc)) from exc
    if job.id != row_id:
        raise RowRefused("the row's id is not its job's id")
    return job


def has_no_outcome(doc: object, copy: object, digest: object) -> bool:
    """Whether a row's checksummed document records no outcome (the job is still to run),
    read without building the job: its JSON's top-level `"outcome": null` (a string value
    cannot hold that text: its quotes would be escaped). False when no copy is good."""
    for blob in (doc, copy):
        if isinstance(blob, bytes) and hashlib.sha256(blob).hexdigest() == digest:
            try:
                unzip = zlib.decompressobj()
                raw = unzip.decompress(blob, MAX_DOC_BYTES)
            except zlib.error:
                return False
            return b'"outcome": null' in raw
    return False


def _reason(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"the field {exc.args[0]!r} is missing"
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "…"


def shown_id(row_id: object) -> str:
    """A row's id as a message may show it: printable, at most 80 characters."""
    text = ascii(row_id) if not isinstance(row_id, str) else row_id
    if not text.isprintable() or len(text) > 80:
        text = ascii(text)[:80] + ("…" if len(ascii(text)) > 80 else "")
    return text


# ---------------------------------------------------------------------------- connections


def is_corrupt(exc: sqlite3.Error) -> bool:
    """SQLite finds the file damaged, or it holds tables of another schema (our statements
    name a column it does not have): either way not a queue this Stepwise can use as it is."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return True
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text or "no such column" in text


HEADER = b"SQLite format 3\0"


def header_damaged(path: Path) -> bool:
    """The file's 100-byte header is not one SQLite writes for a WAL database: its magic, or
    the read/write versions (bytes 18, 19: 1 or 2; a higher one makes SQLite open the file
    read-only, for good). A file shorter than the header is for the caller to judge."""
    try:
        with open_read(path) as f:
            head = f.read(100)
    except (OSError, StepwiseError):
        return False
    return len(head) == 100 and (
        not head.startswith(HEADER) or head[18] not in (1, 2) or head[19] not in (1, 2)
    )


def is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(exc).lower()


def connect(path: Path, timeout_s: float) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, synchronous FULL."""
    conn = sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL").fetchall()
        conn.execute("PRAGMA synchronous=FULL")
        # A removed job's or an old version's bytes are zeroed: the salvage's scan of the file
        # (salvage.scan_documents) finds only what the queue holds.
        conn.execute("PRAGMA secure_delete=ON")
    except BaseException:
        conn.close()
        raise
    return conn


def make_schema(conn: sqlite3.Connection) -> bool:
    """Creates the tables inside the caller's transaction; True when the database was new."""
    for statement in SCHEMA:
        conn.execute(statement)
    found = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    if found is None:
        conn.execute("INSERT INTO meta VALUES ('format', ?), ('paused', '0')", (DB_FORMAT,))
        return True
    if found[0] != DB_FORMAT:
        raise DamagedFileError(
            "The queue {path} has format {found}, which this Stepwise does not know.",
            fix="Use the Stepwise that made it, or move the queue folder away.",
            values={"found": shown_id(found[0])},
        )
    return False


def insert(conn: sqlite3.Connection, rows: list[Encoded], first: int) -> None:
    conn.executemany(
        "INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(r.id, first + n, r.doc, r.doc, r.sha256, r.open, r.files) for n, r in enumerate(rows)],
    )
    put_listing(conn, rows)


def next_position(conn: sqlite3.Connection) -> int:
    found = conn.execute("SELECT max(position) FROM jobs").fetchone()[0]
    return 0 if found is None else int(found) + 1


# ---------------------------------------------------------------------------- damage


def notes(folder: Path) -> list[StepwiseError]:
    """One message per damaged file kept in queue/damaged/ (said until the user removes it)."""
    damaged = folder / DAMAGED
    try:
        names = sorted(os.listdir(damaged))
    except OSError:
        return []
    out: list[StepwiseError] = []
    for name in names:
        where = damaged / name
        values: dict[str, object] = {"file": folder / DB_FILE, "command": typed("queue", "list")}
        try:
            note = json.loads(read_bytes(where / NOTE_FILE, limit=4096).decode("utf-8"))
            count, kind = int(note["salvaged"]), str(note["kind"])
            values["expected"] = int(note.get("expected", 0))
        except (OSError, StepwiseError, ValueError, KeyError, TypeError, AttributeError):
            count, kind = 0, "database"
        message = {
            "legacy": LEGACY_NOTE_MESSAGE,
            "empty": EMPTY_NOTE_MESSAGE,
            "missing": MISSING_NOTE_MESSAGE,
            "lost": LOST_NOTE_MESSAGE,
        }.get(kind, DAMAGED_NOTE_MESSAGE)
        out.append(
            DamagedFileError(message, path=where, fix=NOTE_FIX, values={**values, "count": count})
        )
    return out


def aside_folder(folder: Path) -> Path:
    from app.core.safe_files import check_folder

    check_folder(folder / DAMAGED)  # a file there: said, nothing moved
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    for n in range(1000):
        where = folder / DAMAGED / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            where.mkdir(parents=True)
            return where
        except FileExistsError:
            continue
    raise FileExistsError(str(folder / DAMAGED))


def write_note(where: Path, kind: str, salvaged: int, expected: int = 0) -> None:
    from app.core.atomic import write_text_atomic

    note = {"kind": kind, "salvaged": salvaged, "expected": expected}
    write_text_atomic(where / NOTE_FILE, json.dumps(note))


def read_count(folder: Path) -> int:
    """How many jobs the queue held at its last change (0: none recorded, or unreadable)."""
    try:
        data = json.loads(read_bytes(folder / COUNT_FILE, limit=4096).decode("utf-8"))
        return max(0, int(data["jobs"]))
    except (OSError, StepwiseError, ValueError, KeyError, TypeError, AttributeError):
        return 0


def write_count(folder: Path, count: int) -> None:
    from app.core.atomic import write_text_atomic

    write_text_atomic(folder / COUNT_FILE, json.dumps({"jobs": count}))


def move_aside(db: Path, where: Path | None = None) -> Path:
    """Moves the database and its journal files into a new damaged/<time>/ folder."""
    where = where or aside_folder(db.parent)
    for suffix in ("", "-wal", "-shm"):
        src = db.with_name(db.name + suffix)
        if os.path.lexists(src):
            try:
                os.replace(src, where / src.name)
            except FileNotFoundError:
                pass  # another process moved it aside first
    return where
