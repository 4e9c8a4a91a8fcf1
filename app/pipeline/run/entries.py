"""A run folder's own entries: a new run goes only into an empty folder, nothing inside a run
is a link and its folders are folders (no write lands outside the run), and the temporary
files of interrupted writes are removed when a run opens (issue 17: 4, 5, 6, 7, 10)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from app.core.errors import DamagedFileError, OutputError
from app.pipeline.run.lock import LOCK_FILE
from app.pipeline.run.records import (
    BACKUP_FILE,
    CHECKPOINT_DIR,
    INPUTS_DIR,
    LOG_DIR,
    PREPARED_DIR,
    PREVIEWS_DIR,
    RUN_FILE,
    STEPS_DIR,
)

# The run's own folders: each must be a folder (never a file or a link) when it exists.
RUN_FOLDERS = (INPUTS_DIR, PREPARED_DIR, CHECKPOINT_DIR, STEPS_DIR, LOG_DIR, PREVIEWS_DIR)

_TEMP_DIRS = ("", INPUTS_DIR, PREPARED_DIR, STEPS_DIR, CHECKPOINT_DIR, PREVIEWS_DIR)
# core.atomic's .NAME.HEX12.tmp and the engine's NAME.EXT.tmp / NAME.EXT.tmp<n> (native/src/
# files.cpp: every file the engine writes has an extension; a bare "notes.tmp" is not its)
_TEMP_NAME = re.compile(r"^\.[^/\\]+\.[0-9a-f]{12}\.tmp$|^[^./\\][^/\\]*\.[A-Za-z0-9]+\.tmp[0-9]*$")


def remove_leftover_temps(run_dir: Path) -> list[Path]:
    """Temporary files of writes a crash interrupted: core.atomic's (.NAME.HEX12.tmp) and the
    engine's (NAME.tmp, NAME.tmp<n>), in the run folder and its own folders.

    Call it only while holding the run's lock: another process's write in progress looks the
    same."""
    removed = []
    for sub in _TEMP_DIRS:
        folder = Path(run_dir) / sub
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if _TEMP_NAME.match(name) and (folder / name).is_file():
                try:
                    os.unlink(folder / name)
                    removed.append(folder / name)
                except OSError:
                    pass
    return removed


def check_new_folder(folder: Path) -> None:
    """`folder` is empty but for a lock file; else OutputError / DamagedFileError naming it."""
    try:
        # our own atomic writes in progress (another process creating a run here) are not the
        # user's files: the lock then refuses the second run as busy or the folder as a run
        names = {n for n in os.listdir(folder) if n != LOCK_FILE and not _TEMP_NAME.match(n)}
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(
            "The run folder {path} cannot be read: {reason}.",
            path=folder,
            fix="Choose a run folder (--run-dir) you can read and write.",
            values={"reason": exc.strerror or exc},
        ) from exc
    if names & {RUN_FILE, BACKUP_FILE}:
        raise DamagedFileError(
            "{path} already holds a run.",
            path=folder,
            fix="Resume it, or choose an empty folder.",
        )
    if names:
        shown = sorted(names)
        raise OutputError(
            "The run folder {path} is not empty and holds no run: {entries}.",
            path=folder,
            fix="Choose a new or empty folder (--run-dir); Stepwise does not write into a "
            "folder of other files.",
            values={"entries": ", ".join(shown[:5]) + (", …" if len(shown) > 5 else "")},
        )


def check_entries(run_dir: Path) -> None:
    """Nothing inside the run folder is a link, and its own folders are folders
    (DamagedFileError naming the entry): writes must never land outside the run."""
    root = Path(run_dir)
    for sub in RUN_FOLDERS:
        path = root / sub
        if not path.is_symlink() and path.exists() and not path.is_dir():
            raise DamagedFileError(
                "The run's {entry} is not a folder ({path}).",
                path=path,
                fix="Move that file away (a run keeps its {entry} files in a folder of that "
                "name) and try again.",
                values={"entry": sub},
            )
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(folder) / name
            if path.is_symlink():
                raise DamagedFileError(
                    "The run's {entry} is a link ({path}); Stepwise never writes through "
                    "links in a run folder.",
                    path=path,
                    fix="Replace the link with the real file or folder, or remove it, and try "
                    "again.",
                    values={"entry": path.relative_to(root).as_posix()},
                )
