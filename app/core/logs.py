"""Logging to a rotating file in the user log folder (and stderr for warnings)."""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import sys
from pathlib import Path

LOG_FILE_BYTES = 2 * 1024 * 1024
LOG_FILE_COUNT = 3


class LogFileHandler(logging.handlers.RotatingFileHandler):
    """The log file; a write that fails (a full disk, a removed folder) is said once, in one
    line, never as logging's traceback per record (issue 29, defect 6)."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:
        if not self.failed:
            self.failed = True
            why = sys.exc_info()[1]
            reason = getattr(why, "strerror", None) or why or "unknown"
            with contextlib.suppress(Exception):
                sys.stderr.write(
                    f"warning: the log file {self.baseFilename} cannot be written "
                    f"({reason}); further failures are not shown.\n"
                )


def setup_logging(log_dir: Path, *, verbose: bool = False) -> Path:
    """Configures the root logger once; returns the log file's path."""
    log_dir.mkdir(parents=True, exist_ok=True)
    log_file = log_dir / "stepwise.log"
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_stepwise", False):
            root.removeHandler(handler)
    file_handler = LogFileHandler(
        log_file, maxBytes=LOG_FILE_BYTES, backupCount=LOG_FILE_COUNT, encoding="utf-8"
    )
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    file_handler._stepwise = True  # type: ignore[attr-defined]
    console = logging.StreamHandler()
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    console._stepwise = True  # type: ignore[attr-defined]
    root.addHandler(file_handler)
    root.addHandler(console)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    return log_file
