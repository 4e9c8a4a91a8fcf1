"""Logging to a rotating file in the user log folder (and stderr for warnings)."""

from __future__ import annotations

import contextlib
import io
import logging
import logging.handlers
import os
import sys
from pathlib import Path

from app.core.errors import StepwiseError, error_text
from app.core.safe_files import open_in_place

LOG_FILE_BYTES = 2 * 1024 * 1024
LOG_FILE_COUNT = 3


class LogFileHandler(logging.handlers.RotatingFileHandler):
    """The log file; a write that fails (a full disk, a removed folder) is said once, in one
    line, never as logging's traceback per record (issue 29, defect 6)."""

    failed = False

    def _open(self) -> io.TextIOWrapper:
        """The log file appended through the safe-file layer: a FIFO, device, link or second
        name at stepwise.log is refused (SafeFileError), never opened so that it blocks."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        fd = open_in_place(Path(self.baseFilename), flags)
        return io.TextIOWrapper(os.fdopen(fd, "ab"), encoding=self.encoding, errors=self.errors)

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
    """Configures the root logger once; returns the log file's path. A log file that cannot be
    opened (a FIFO, a link, a folder there, a read-only folder) is said in one line on stderr
    and the process logs to stderr only: no command hangs or fails over its own log."""
    log_file = log_dir / "stepwise.log"
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_stepwise", False):
            root.removeHandler(handler)
    file_handler: LogFileHandler | None = None
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        file_handler = LogFileHandler(
            log_file, maxBytes=LOG_FILE_BYTES, backupCount=LOG_FILE_COUNT, encoding="utf-8"
        )
    except (OSError, StepwiseError) as exc:
        reason = error_text(exc) if isinstance(exc, StepwiseError) else exc.strerror or exc
        with contextlib.suppress(Exception):
            sys.stderr.write(f"warning: no log file ({reason}); logging to the console only.\n")
    if file_handler is not None:
        file_handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
        )
        file_handler._stepwise = True  # type: ignore[attr-defined]
        root.addHandler(file_handler)
    console = logging.StreamHandler()
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    console._stepwise = True  # type: ignore[attr-defined]
    root.addHandler(console)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    return log_file
