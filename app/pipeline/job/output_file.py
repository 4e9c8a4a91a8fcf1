"""The file a finished run's result is copied to (`run -o`): checked before the run begins,
not after it (issue 17, 3); the copy itself is atomic (inputs.copy_atomic)."""

from __future__ import annotations

import os
from pathlib import Path

from app.core.errors import OutputError


def check_output_file(path: Path | str, flag: str = "-o") -> None:
    """The result can be written to `path` (OutputError naming it): not a folder, under a
    folder (not a file) that is writable. Checked before the run, not after it."""
    path = Path(path)
    what = {"flag": flag}
    if path.is_dir():
        raise OutputError(
            "The output {path} ({flag}) is a folder.",
            path=path,
            fix="Name a PNG file to write, e.g. {example}.",
            values={**what, "example": path / "result.png"},
        )
    existing = path.parent
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(
            "The output {path} ({flag}) cannot be written: {existing} is a file, not a folder.",
            path=path,
            fix="Name a PNG file in a folder.",
            values={**what, "existing": existing},
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(
            "The output {path} ({flag}) cannot be written: {existing} is read-only.",
            path=path,
            fix="Name a PNG file in a folder you can write to.",
            values={**what, "existing": existing},
        )
