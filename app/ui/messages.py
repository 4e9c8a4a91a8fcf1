"""Message boxes for problems the user can fix: what happened, which file, what to do next."""

from __future__ import annotations

import errno
import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from app.core.errors import ERROR_CONTEXT, StepwiseError
from app.ui.texts import sentence, window_values

log = logging.getLogger(__name__)
TR_CONTEXT = "Messages"


def _tr(text: str) -> str:
    return QCoreApplication.translate(TR_CONTEXT, text)


def translate_error(template: str) -> str:
    """An error template in the UI's language (Qt context "errors", the errors_*.ts files)."""
    return QCoreApplication.translate(ERROR_CONTEXT, template)


def describe_error(exc: BaseException, path: Path | str | None = None) -> str:
    """A sentence or two for the user; never a traceback."""
    if isinstance(exc, StepwiseError):
        return sentence(exc.user_message(translate_error, values=window_values(exc.values)))
    where = f" ({path})" if path else ""
    if isinstance(exc, MemoryError):
        return (
            _tr("There is not enough memory for this image.")
            + where
            + " "
            + _tr("Close other programs or use a smaller image.")
        )
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            return (
                _tr("The disk is full.")
                + where
                + " "
                + _tr("Free some space or choose another folder.")
            )
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return (
                _tr("Permission denied.") + where + " " + _tr("Choose a folder you can write to.")
            )
        if exc.errno == errno.ENOENT:
            return _tr("The file does not exist.") + where
        return (exc.strerror or str(exc)) + where
    return str(exc) + where


def show_error(
    parent: QWidget | None, title: str, exc: BaseException | str, path: Path | str | None = None
) -> None:
    text = exc if isinstance(exc, str) else describe_error(exc, path)
    if isinstance(exc, BaseException):
        log.warning("%s: %s", title, text, exc_info=not isinstance(exc, StepwiseError | OSError))
    QMessageBox.warning(parent, title, text)
