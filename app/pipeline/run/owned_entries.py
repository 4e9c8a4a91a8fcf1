"""The table of the entries each folder Stepwise owns may hold, and how each is opened.

One row per entry: the folder it lives in, its path there, and how Stepwise uses it:
- "read": read only, through core/safe_files.read_bytes (a regular file, a read that cannot
  block);
- "whole": written whole (core/atomic: a new file renamed over) and read as "read";
- "in-place": written where it is (a lock, an appended log): core/safe_files.open_in_place
  (never a link, a FIFO, a device, or a file with a second name);
- "database": the queue's SQLite file: checked by safe_files.check_entry before SQLite opens
  it (SQLite writes it in place; a damaged one is moved aside, app/pipeline/queue/db.py).

The bad-entry matrix (bench/owned_files_matrix.py; its short form in the suite) plants each
kind of wrong thing at each entry and runs every command that touches it.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.pipeline.run.records import BACKUP_FILE, CHECKPOINT_DIR, LOG_DIR, PREPARED_DIR, RUN_FILE

RUN, QUEUE, SETTINGS, CACHE = "run folder", "queue", "settings", "cache"


@dataclass(frozen=True)
class Entry:
    folder: str  # RUN, QUEUE, SETTINGS or CACHE
    path: str  # inside that folder ("<id>"-style parts are filled by whoever plants it)
    use: str  # read | whole | in-place | database
    commands: tuple[str, ...]  # the commands that open it


RUN_COMMANDS = ("status", "resume", "queue list", "queue run")
ENTRIES: tuple[Entry, ...] = (
    Entry(RUN, RUN_FILE, "whole", RUN_COMMANDS),
    Entry(RUN, BACKUP_FILE, "whole", RUN_COMMANDS),
    Entry(RUN, ".lock", "in-place", ("resume", "queue run")),
    Entry(RUN, f"{LOG_DIR}/diffuse.log", "in-place", ("resume", "queue run")),
    Entry(RUN, f"{CHECKPOINT_DIR}/metadata.json", "read", ("status", "resume")),
    Entry(RUN, f"{PREPARED_DIR}/prepare.json", "whole", ("status", "resume")),
    Entry(QUEUE, "queue.db", "database", ("queue list", "queue run", "queue add")),
    Entry(QUEUE, "queue.db-wal", "in-place", ("queue list", "queue add")),  # SQLite's journal
    Entry(QUEUE, "queue.db-shm", "in-place", ("queue list", "queue run")),  # and its lock
    Entry(SETTINGS, "settings.json", "whole", ("queue list", "status")),
    Entry(CACHE, "<key>/entry.json", "whole", ("resume", "queue run")),
)
