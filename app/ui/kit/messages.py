"""Message boxes for problems the user can fix: what happened, which file, what to do next."""

from __future__ import annotations

import errno
import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from app.core.errors import ERROR_CONTEXT, StepwiseError
from app.ui.words.os_reasons import reason_text
from app.ui.words.sentences import tidy
from app.ui.words.texts import sentence, window_values

log = logging.getLogger(__name__)
TR_CONTEXT = "Messages"


def _tr(text: str) -> str:
    return QCoreApplication.translate(TR_CONTEXT, text)


def translate_error(template: str) -> str:
    """An error template in the UI's language (Qt context "errors", the errors_*.ts files)."""
    return QCoreApplication.translate(ERROR_CONTEXT, template)


def _at(text: str, path: Path | str | None) -> str:
    """A sentence with the file it is about, in this language's brackets."""
    return _tr("{message} ({path})").format(message=text, path=path) if path else text


def describe_error(exc: BaseException, path: Path | str | None = None) -> str:
    """A sentence or two for the user; never a traceback. Sentences are joined with tidy() (no
    space after a Chinese full stop) and the OS's reason is translated or quoted."""
    if isinstance(exc, StepwiseError):
        return sentence(exc.user_message(translate_error, values=window_values(exc.values)))
    if isinstance(exc, MemoryError):
        first = _at(_tr("There is not enough memory for this image."), path)
        return tidy(first + " " + _tr("Close other programs or use a smaller image."))
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            first = _at(_tr("The disk is full."), path)
            return tidy(first + " " + _tr("Free some space or choose another folder."))
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            first = _at(_tr("Permission denied."), path)
            return tidy(first + " " + _tr("Choose a folder you can write to."))
        if exc.errno == errno.ENOENT:
            return _at(_tr("The file does not exist."), path)
        reason = reason_text(exc)
        if reason == (exc.strerror or str(exc)):  # not one it knows: the OS's words, quoted
            reason = "\u201c" + reason + "\u201d"
        return _at(_tr("The system reports: {reason}.").format(reason=reason), path)
    return _at(str(exc), path)


def show_error(
    parent: QWidget | None, title: str, exc: BaseException | str, path: Path | str | None = None
) -> None:
    text = exc if isinstance(exc, str) else describe_error(exc, path)
    if isinstance(exc, BaseException):
        log.warning("%s: %s", title, text, exc_info=not isinstance(exc, StepwiseError | OSError))
    QMessageBox.warning(parent, title, text)
