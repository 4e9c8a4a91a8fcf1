"""An imported sd-cli command applied to the job, with one step of undo.

The import replaces many settings at once (models, devices, sampling); "Undo import" puts back
what the form held before and takes out the reference images the import added."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QPushButton, QWidget

from app.core.errors import StepwiseError
from app.jobs.generation import GenerationModel
from app.jobs.job_inputs import Reference
from app.jobs.run_state import user_text


def _tr(text: str) -> str:
    return QCoreApplication.translate("SdCliApply", text)


class ImportUndo(QObject):
    """Applies an import and keeps what it replaced until the user undoes it or imports again."""

    undone = Signal()  # the settings before the import are back

    def __init__(self, model: GenerationModel, parent: QWidget) -> None:
        super().__init__(parent)
        self.model = model
        self.button = QPushButton(_tr("Undo import"), parent)
        self.button.setObjectName("generation_undo_import")
        self.button.setToolTip(_tr("Put back the settings the sd-cli import replaced."))
        self.button.hide()
        self.button.clicked.connect(self.undo)
        self._before: dict[str, object] | None = None
        self._added: list[Reference] = []

    def apply(self, values: dict[str, object], refs: Sequence[Path] = ()) -> list[str]:
        """Sets the form and adds the references; returns what could not be added (words)."""
        form = self.model.form
        current = form.values()
        self._before = {k: current[k] for k in values if k in current and current[k] != values[k]}
        form.update(values)
        self._added, problems = [], []
        for path in refs:
            try:
                ref = Reference.load(path)
            except (StepwiseError, OSError) as exc:
                problems.append(user_text(exc))
                continue
            if self.model.inputs.add_ref(ref):
                self._added.append(ref)
        self.button.setVisible(bool(self._before or self._added))
        return problems

    def undo(self) -> None:
        if self._before is not None:
            self.model.form.update(self._before)
        inputs = self.model.inputs
        kept = [r for r in inputs.refs if not any(r is a for a in self._added)]
        if len(kept) != len(inputs.refs):
            inputs.set_refs(kept)
        self._before, self._added = None, []
        self.button.hide()
        self.undone.emit()
