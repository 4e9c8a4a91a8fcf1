""" "Import sd-cli command": paste a command line, see what Stepwise makes of it, apply it."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.pipeline.params import PARAMS
from app.pipeline.sdcli_import import SdCliImport, import_sd_cli
from app.ui.texts import note_text

PARSE_DELAY_MS = 250


def _tr(text: str) -> str:
    return QCoreApplication.translate("SdCliImportDialog", text)


class SdCliImportDialog(QDialog):
    """Parses as you type (app.pipeline.sdcli_import) and lists its notes; OK applies."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sdcli_import_dialog")
        self.setWindowTitle(_tr("Import sd-cli command"))
        self.imported: SdCliImport | None = None
        self.edit = QPlainTextEdit(self)
        self.edit.setObjectName("sdcli_command")
        self.edit.setPlaceholderText(
            _tr(
                "Paste an sd-cli command line (from a .bat, .ps1 or .sh "
                "file); line continuations are fine."
            )
        )
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.notes = QListWidget(self)
        self.notes.setObjectName("sdcli_notes")
        self.notes.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(_tr("Use these settings"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(_tr("Command"), self))
        layout.addWidget(self.edit, 2)
        layout.addWidget(self.summary)
        layout.addWidget(QLabel(_tr("Notes"), self))
        layout.addWidget(self.notes, 1)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PARSE_DELAY_MS)
        self._timer.timeout.connect(self.parse)
        self.edit.textChanged.connect(self._timer.start)
        self.resize(720, 520)
        self.parse()

    def set_command(self, text: str) -> None:
        self.edit.setPlainText(text)
        self.parse()

    def values(self) -> dict[str, object]:
        """The form values to apply: everything that shapes the result, and the device and
        engine switches the command gave (the user's other choices stay)."""
        if self.imported is None:
            return {}
        given = self.imported.given
        return {
            p.name: self.imported.values[p.name]
            for p in PARAMS
            if p.invalidates is not None or p.name in given
        }

    def parse(self) -> None:
        text = self.edit.toPlainText()
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.notes.clear()
        if not text.strip():
            self.imported = None
            self.summary.setText("")
            ok.setEnabled(False)
            return
        try:
            result = import_sd_cli(text)
        except (ValueError, TypeError, KeyError) as exc:
            self.imported = None
            self.summary.setText(_tr("This command cannot be read: {error}").format(error=exc))
            ok.setEnabled(False)
            return
        self.imported = result
        v = result.values
        found = [n for n in ("diffusion_model", "llm_model", "vae_model") if v.get(n)]
        self.summary.setText(
            _tr("{count} of 3 model files, {w}×{h}, {steps} steps, seed {seed}.").format(
                count=len(found), w=v["width"], h=v["height"], steps=v["steps"], seed=v["seed"]
            )
        )
        for note in result.notes:
            self.notes.addItem("• " + note_text(note))
        if not result.notes:
            self.notes.addItem(_tr("Nothing to note: Stepwise runs this command as it is."))
        ok.setEnabled(True)
