"""The operating system's reason for a failed file operation, in the UI's language.

Errors carry the OS's own words as a value ("reason": `exc.strerror`, English on every
platform's C library). The UI shows a reason it knows (by its errno) as a translated phrase;
any other stays the value it is (a template quotes it where it may be English).
"""

from __future__ import annotations

import errno
import os

from PySide6.QtCore import QCoreApplication

from app.ui.words.i18n import QT_TRANSLATE_NOOP

TR_CONTEXT = "OsReasons"

_REASONS: dict[int, str] = {
    errno.ENOENT: QT_TRANSLATE_NOOP("OsReasons", "the file or folder does not exist"),
    errno.EACCES: QT_TRANSLATE_NOOP("OsReasons", "permission denied"),
    errno.EPERM: QT_TRANSLATE_NOOP("OsReasons", "the operation is not permitted"),
    errno.EROFS: QT_TRANSLATE_NOOP("OsReasons", "the disk is read-only"),
    errno.ENOSPC: QT_TRANSLATE_NOOP("OsReasons", "the disk is full"),
    errno.EEXIST: QT_TRANSLATE_NOOP("OsReasons", "a file of that name is in the way"),
    errno.ENOTDIR: QT_TRANSLATE_NOOP("OsReasons", "a part of the path is a file, not a folder"),
    errno.EISDIR: QT_TRANSLATE_NOOP("OsReasons", "it is a folder, not a file"),
    errno.EIO: QT_TRANSLATE_NOOP("OsReasons", "the disk reported an input/output error"),
    errno.EBUSY: QT_TRANSLATE_NOOP("OsReasons", "the file is in use"),
    errno.ENAMETOOLONG: QT_TRANSLATE_NOOP("OsReasons", "the name is too long"),
}
_BY_TEXT = {os.strerror(code): code for code in _REASONS}


def reason_text(reason: object) -> str:
    """An OSError, its errno or its strerror as the user reads it: a known reason translated,
    any other as it is."""
    code: int | None
    if isinstance(reason, OSError):
        code = reason.errno
        reason = reason.strerror or reason
    else:
        code = reason if isinstance(reason, int) else _BY_TEXT.get(str(reason))
    if code is not None and code in _REASONS:
        return QCoreApplication.translate(TR_CONTEXT, _REASONS[code])
    return str(reason)
