"""Model file fields: a path, a picker, and a check that runs as soon as a file is chosen."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.pipeline.job.preflight import model_file_kind, model_header_ok
from app.ui.words.texts import model_kind_name

# kind -> accepted extensions
MODEL_EXTENSIONS: dict[str, tuple[str, ...]] = {
    "diffusion": (".gguf", ".safetensors"),
    "llm": (".gguf", ".safetensors"),
    "vae": (".safetensors", ".gguf"),
    "lora": (".safetensors",),
}
# Below this a file can't hold even a tiny model: it is truncated or the wrong file.
MIN_MODEL_BYTES = 1024
# Real klein files are hundreds of MB to GB; smaller ones get a gentle note, not a refusal.
TYPICAL_MIN_BYTES = {"diffusion": 500 * 1024**2, "llm": 500 * 1024**2, "vae": 50 * 1024**2}


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationModels", text)


@dataclass(frozen=True)
class FileCheck:
    """The outcome of checking one chosen file: ok, plus a message naming the file."""

    ok: bool
    message: str = ""
    warning: bool = False


def check_model_file(path_text: str, kind: str) -> FileCheck:
    """Exists, has a model extension, is not truncated; the message names the file and the fix."""
    if not path_text.strip():
        return FileCheck(False, _tr("Choose the {kind} file.").format(kind=model_kind_name(kind)))
    path = Path(path_text).expanduser()
    name = path.name
    if kind == "lora":
        if not path.is_dir():
            return FileCheck(
                False,
                _tr(
                    "The LoRA folder {name} does not exist. Choose an "
                    "existing folder or leave it empty."
                ).format(name=path),
            )
        count = len(list_loras(str(path)))
        return FileCheck(
            True, _tr("{count} LoRA file(s) in {name}.").format(count=count, name=name)
        )
    if not path.exists():
        return FileCheck(
            False,
            _tr("{name} does not exist. Check the path or choose the file again.").format(
                name=path
            ),
        )
    if not path.is_file():
        return FileCheck(False, _tr("{name} is a folder, not a model file.").format(name=name))
    allowed = MODEL_EXTENSIONS.get(kind, ())
    if path.suffix.lower() not in allowed:
        return FileCheck(
            False,
            _tr("{name} is not a {kind} file: expected {ext}.").format(
                name=name, kind=model_kind_name(kind), ext=" / ".join(allowed)
            ),
        )
    try:
        size = path.stat().st_size
        header_ok = size >= MIN_MODEL_BYTES and model_header_ok(path)
    except OSError as exc:
        return FileCheck(
            False,
            _tr("{name} cannot be read ({error}). Check its permissions.").format(
                name=name, error=exc.strerror or exc
            ),
        )
    if not header_ok:
        return FileCheck(
            False,
            _tr("{name} is damaged or incomplete ({size}). Download it again.").format(
                name=name, size=format_size(size)
            ),
        )
    found = model_file_kind(path) if kind in TYPICAL_MIN_BYTES else None
    if found is not None and found != kind:  # the header says what it is: no size guess
        return FileCheck(
            False,
            _tr("{name} holds a {found}, not a {kind}. Choose it in the {found} field.").format(
                name=name, found=model_kind_name(found), kind=model_kind_name(kind)
            ),
        )
    if size < TYPICAL_MIN_BYTES.get(kind, 0):
        return FileCheck(
            True,
            _tr(
                "{name} ({size}) is small for a FLUX.2 klein {kind}; make "
                "sure it is the right file."
            ).format(name=name, size=format_size(size), kind=model_kind_name(kind)),
            warning=True,
        )
    return FileCheck(True, _tr("{name} ({size})").format(name=name, size=format_size(size)))


def format_size(size: int) -> str:
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size} B"


def list_loras(folder: str) -> list[str]:
    """LoRA names (file stems) in `folder`, as the prompt tag <lora:NAME:1.0> uses them."""
    if not folder:
        return []
    path = Path(folder).expanduser()
    if not path.is_dir():
        return []
    try:
        return sorted(
            p.stem
            for p in path.iterdir()
            if p.is_file() and p.suffix.lower() in MODEL_EXTENSIONS["lora"]
        )
    except OSError:
        return []


class ModelFileField(QWidget):
    """Path box + "…" picker + a status line; checks the file as soon as it is chosen."""

    path_changed = Signal(str)

    def __init__(self, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.edit = QLineEdit(self)
        self.edit.setObjectName(f"model_{kind}")
        self.edit.setPlaceholderText(_tr("Not chosen"))
        self.browse = QToolButton(self)
        self.browse.setText("…")
        self.browse.setToolTip(_tr("Choose…"))
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setObjectName(f"model_{kind}_status")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(self.browse)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self.status)
        self.browse.clicked.connect(self._choose)
        self.edit.editingFinished.connect(self._edited)
        self._last = ""
        self.check = check_model_file("", kind)
        self._show(self.check, quiet=True)

    def path(self) -> str:
        return self.edit.text().strip()

    def set_path(self, path: str) -> None:
        self.edit.setText(path)
        self._edited()

    def is_valid(self) -> bool:
        return self.check.ok or (self.kind == "lora" and not self.path())

    def _choose(self) -> None:
        start = self.path() or ""
        if self.kind == "lora":
            chosen = QFileDialog.getExistingDirectory(self, _tr("Choose the LoRA folder"), start)
        else:
            patterns = " ".join(f"*{e}" for e in MODEL_EXTENSIONS[self.kind])
            chosen, _ = QFileDialog.getOpenFileName(
                self,
                _tr("Choose the {kind} file").format(kind=model_kind_name(self.kind)),
                start,
                _tr("Model files ({patterns})").format(patterns=patterns),
            )
        if chosen:
            self.set_path(chosen)

    def _edited(self) -> None:
        path = self.path()
        self.check = check_model_file(path, self.kind)
        self._show(self.check, quiet=not path and self.kind == "lora")
        if path != self._last:
            self._last = path
            self.path_changed.emit(path)

    def _show(self, check: FileCheck, *, quiet: bool = False) -> None:
        if quiet:
            self.status.setText(_tr("Optional.") if self.kind == "lora" else check.message)
            self.status.setStyleSheet("color: palette(mid);")
            return
        color = "#b26a00" if check.warning else ("#2e7d32" if check.ok else "#c62828")
        self.status.setText(("✓ " if check.ok and not check.warning else "") + check.message)
        self.status.setStyleSheet(f"color: {color};")
