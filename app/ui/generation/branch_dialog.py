"""Branch from here: the branch's seed, steps, prompt and strength, and what it reuses of the
run ("continues from step k of N" when diffusion's inputs stay, else where it starts over)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.jobs.values import first_rerun
from app.pipeline.api import RunSnapshot
from app.pipeline.job.params import SEED, STEPS, STRENGTH
from app.pipeline.job.spec import effective_steps

PROMPT_LINES = 3


def _tr(text: str) -> str:
    return QCoreApplication.translate("Runs", text)


def reuse_text(run: RunSnapshot, step: int, changes: dict[str, Any]) -> str:
    """What a branch from `step` with `changes` keeps of `run`, in the user's words; "of N"
    counts the steps the branch runs (its new steps and strength, when changed)."""
    steps = run.steps or run.spec.steps
    if "steps" in changes or "strength" in changes:
        steps = effective_steps(replace(run.spec, **changes))
    rerun = first_rerun(changes)
    if rerun is None or rerun in ("vae-decode", "composite"):
        if step <= 0:
            return _tr("Starts at step 1 of {steps}; nothing is diffused yet.").format(steps=steps)
        return _tr("Continues from step {step} of {steps}; steps 1–{step} are reused.").format(
            step=step, steps=steps
        )
    if rerun == "diffuse":
        return _tr(
            "Diffusion starts over at step 1 of {steps}: a new seed, number of steps or "
            "strength changes every step. The prepared image and the prompt's encoding are "
            "reused."
        ).format(steps=steps)
    if rerun == "llm-encode":
        return _tr(
            "Diffusion starts over at step 1 of {steps} after the new prompt is encoded; the "
            "prepared image is reused."
        ).format(steps=steps)
    return _tr("Everything runs again from the prepared image on.")


class BranchDialog(QDialog):
    """Seed, steps, prompt and strength for a branch of `run` from `step`."""

    def __init__(self, run: RunSnapshot, step: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runs_branch_dialog")
        self.setWindowTitle(_tr("Branch from step {step}").format(step=step))
        self.run, self.step = run, step
        spec = run.spec
        self.seed = QSpinBox(self)
        self.seed.setObjectName("branch_seed")
        self.seed.setRange(int(SEED.minimum or -1), int(SEED.maximum or 2**31 - 1))
        self.seed.setValue(spec.seed)
        self.steps = QSpinBox(self)
        self.steps.setObjectName("branch_steps")
        self.steps.setRange(int(STEPS.minimum or 1), int(STEPS.maximum or 200))
        self.steps.setValue(spec.steps)
        self.prompt = QPlainTextEdit(spec.prompt, self)
        self.prompt.setObjectName("branch_prompt")
        line = self.prompt.fontMetrics().lineSpacing()
        self.prompt.setFixedHeight(line * PROMPT_LINES + 12)
        self.strength = QDoubleSpinBox(self)
        self.strength.setObjectName("branch_strength")
        self.strength.setRange(float(STRENGTH.minimum or 0.0), float(STRENGTH.maximum or 1.0))
        self.strength.setSingleStep(0.05)
        self.strength.setDecimals(2)
        self.strength.setValue(spec.strength)
        self.strength.setEnabled(spec.image is not None)  # text to image: no strength
        self.reuse_label = QLabel(self)
        self.reuse_label.setObjectName("branch_reuse")
        self.reuse_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow(_tr("Seed"), self.seed)
        form.addRow(_tr("Steps"), self.steps)
        form.addRow(_tr("Prompt"), self.prompt)
        form.addRow(_tr("Strength"), self.strength)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(_tr("Branch"))
        ok.setObjectName("branch_ok")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.reuse_label)
        layout.addWidget(buttons)
        for spin in (self.seed, self.steps, self.strength):
            spin.valueChanged.connect(self._update)
        self.prompt.textChanged.connect(self._update)
        self._update()
        self.resize(520, self.sizeHint().height())

    def changes(self) -> dict[str, Any]:
        """JobSpec field → value, for what differs from the run."""
        spec = self.run.spec
        values = {
            "seed": self.seed.value(),
            "steps": self.steps.value(),
            "prompt": self.prompt.toPlainText().strip(),
            "strength": round(self.strength.value(), 4),
        }
        return {k: v for k, v in values.items() if v != getattr(spec, k)}

    def _update(self) -> None:
        self.reuse_label.setText(reuse_text(self.run, self.step, self.changes()))
