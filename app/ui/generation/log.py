"""Errors in plain words with the next thing to try, and the engine log one click away."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QFontDatabase, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

LOG_TAIL_BYTES = 256 * 1024
MEMORY_LOG_LINES = 2000

# Terminal control sequences in sd.cpp's output: CSI (colours "\x1b[34;1m", erase line
# "\x1b[K"), OSC (titles, links; ended by BEL or ST) and the other two-byte escapes.
TERMINAL_CODES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC
    r"|\x1b[@-Z\\-_]"  # two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationLog", text)


class GenerationErrorBanner(QFrame):
    """A red-edged box: the message, the next thing to try, and "Show engine log"."""

    show_log_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("generation_error")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "#generation_error { border: 1px solid #c62828; border-radius: 4px;"
            " background: rgba(198, 40, 40, 0.08); }"
        )
        self.message = QLabel(self)
        self.message.setObjectName("generation_error_message")
        self.message.setWordWrap(True)
        self.hint = QLabel(self)
        self.hint.setWordWrap(True)
        self.log_button = QPushButton(_tr("Show engine log"), self)
        self.log_button.setObjectName("generation_show_log")
        self.close_button = QPushButton(_tr("Dismiss"), self)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.log_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.hint)
        layout.addLayout(buttons)
        self.log_button.clicked.connect(self.show_log_requested)
        self.close_button.clicked.connect(self.hide)
        self.hide()

    def show_error(self, message: str, hint: str = "") -> None:
        self.message.setText("<b>" + _escape(message) + "</b>")
        self.hint.setText(hint)
        self.hint.setVisible(bool(hint))
        self.show()

    def text(self) -> str:
        return self.message.text() + "\n" + self.hint.text()


def strip_terminal_codes(text: str) -> str:
    """Plain text from a terminal stream: escape codes removed, and of a line that a progress
    bar rewrote with carriage returns only its last state."""
    lines = TERMINAL_CODES.sub("", text).split("\n")
    return "\n".join(line.rstrip("\r").rsplit("\r", 1)[-1] for line in lines)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def read_log_tail(path: str) -> str:
    if not path:
        return ""
    try:
        with Path(path).open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - LOG_TAIL_BYTES))
            data = f.read()
    except OSError as exc:
        return _tr("The log {path} cannot be read: {error}").format(path=path, error=exc)
    return strip_terminal_codes(data.decode("utf-8", errors="replace"))


class EngineLogDialog(QDialog):
    """The engine's log: the failed stage's log file, else the lines this session received."""

    def __init__(self, text: str, path: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("generation_log_dialog")
        self.setWindowTitle(_tr("Engine log"))
        self.view = QPlainTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        text = strip_terminal_codes(text)
        self.view.setPlainText(text or _tr("The engine has not written anything yet."))
        self.view.moveCursor(QTextCursor.MoveOperation.End)
        where = QLabel(path or _tr("Log of this session"), self)
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(where)
        layout.addWidget(self.view, 1)
        layout.addWidget(buttons)
        self.resize(760, 480)
