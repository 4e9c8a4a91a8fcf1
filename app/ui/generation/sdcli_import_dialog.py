""" "Import sd-cli command": paste a command line, see what Stepwise makes of it, apply it."""

from __future__ import annotations

from pathlib import Path

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

from app.pipeline.failures import Note, NoteCode
from app.pipeline.job.params import DIFFUSION_MODEL, HEIGHT, LLM_MODEL, PARAMS, VAE_MODEL, WIDTH
from app.pipeline.job.sdcli_import import SdCliImport, import_sd_cli
from app.ui.words.texts import note_text

PARSE_DELAY_MS = 250
MODEL_NAMES = (DIFFUSION_MODEL.name, LLM_MODEL.name, VAE_MODEL.name)
SIZE_NAMES = (WIDTH.name, HEIGHT.name)


def _tr(text: str) -> str:
    return QCoreApplication.translate("SdCliImportDialog", text)


def target_label(name: str) -> str:
    """A parameter an sd-cli flag maps onto, in the words of the Generate tab's Devices pane."""
    labels = {
        "llm_device": _tr("the text encoder's device"),
        "diffusion_device": _tr("the diffusion model's device"),
        "vae_device": _tr("the VAE's device"),
    }
    return labels.get(name, name)


def shown_note(note: Note) -> str:
    """The note in words; a mapped flag names what it sets as the form does, not the row."""
    if note.code is NoteCode.FLAG_MAPPED and "target" in note.params:
        targets = str(note.params["target"]).split(",")
        params = {**note.params, "target": ", ".join(target_label(t) for t in targets)}
        note = Note(note.code, params)
    return note_text(note)


class SdCliImportDialog(QDialog):
    """Parses as you type (app.pipeline.job.sdcli_import) and lists its notes; OK applies."""

    def __init__(
        self, parent: QWidget | None = None, picture_size: tuple[int, int] | None = None
    ) -> None:
        super().__init__(parent)
        self.picture_size = picture_size  # (w, h) of the open picture: it sets the size
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
        kept = set(MODEL_NAMES) - given  # a model file the command does not name stays
        if self.picture_size is not None:
            kept |= set(SIZE_NAMES)  # the open picture sets the size
        return {
            p.name: self.imported.values[p.name]
            for p in PARAMS
            if (p.invalidates is not None or p.name in given) and p.name not in kept
        }

    def references(self) -> list[Path]:
        """The command's reference images (-r) that exist: added to the job's references."""
        if self.imported is None:
            return []
        return [Path(r) for r in self.imported.refs if Path(r).is_file()]

    def _input_lines(self, result: SdCliImport) -> list[str]:
        """What becomes of the command's input files and size (the GUI's, not the importer's)."""
        lines = []
        for ref in result.refs:
            if Path(ref).is_file():
                lines.append(_tr("-r {path}: added to the reference images.").format(path=ref))
            else:
                lines.append(
                    _tr("-r {path}: no such file; not added to the reference images.").format(
                        path=ref
                    )
                )
        for flag, path in (("-i", result.image), ("--mask", result.mask)):
            if path:
                lines.append(
                    _tr("{flag} {path}: not opened; open it on the canvas (File → Open…).").format(
                        flag=flag, path=path
                    )
                )
        size_given = bool(set(SIZE_NAMES) & result.given)
        if self.picture_size is not None and result.image is None and size_given:
            v = result.values
            lines.append(
                _tr("-W/-H {w}×{h}: ignored, the open picture sets the size.").format(
                    w=v[WIDTH.name], h=v[HEIGHT.name]
                )
            )
        return lines

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
        found = [n for n in MODEL_NAMES if v.get(n)]
        w, h = self.picture_size or (v[WIDTH.name], v[HEIGHT.name])
        size = (
            _tr("{w}×{h} (the open picture)") if self.picture_size is not None else _tr("{w}×{h}")
        ).format(w=w, h=h)
        self.summary.setText(
            _tr("{count} of 3 model files, {size}, {steps} steps, seed {seed}.").format(
                count=len(found), size=size, steps=v["steps"], seed=v["seed"]
            )
        )
        lines = self._input_lines(result) + [shown_note(n) for n in result.notes]
        for line in lines:
            self.notes.addItem("• " + line)
        if not lines:
            self.notes.addItem(_tr("Nothing to note: Stepwise runs this command as it is."))
        ok.setEnabled(True)
