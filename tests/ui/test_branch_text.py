"""The Branch dialog's text follows the settings in it: "step 1 of N" counts the steps the
branch will run (its new number of steps, after strength), not the run's old count."""

from __future__ import annotations

from pathlib import Path

from app.pipeline.api import RunSnapshot
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.ui.generation.branch_dialog import BranchDialog


def _run(tmp_path: Path, strength: float = 1.0) -> RunSnapshot:
    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a door",
                   image="image.png", steps=40, strength=strength)  # fmt: skip
    steps = 40 if strength == 1.0 else 21
    return RunSnapshot(tmp_path, "run", "2026-12-05T14:00:00", spec, (), steps, 12, (12,), None,
                       None, None)  # fmt: skip


def test_the_branch_text_counts_the_new_steps(qtbot, tmp_path) -> None:
    dialog = BranchDialog(_run(tmp_path), 12)
    qtbot.addWidget(dialog)
    assert dialog.reuse_label.text().startswith("Continues from step 12 of 40;")
    dialog.steps.setValue(20)
    assert dialog.reuse_label.text().startswith("Diffusion starts over at step 1 of 20:")


def test_the_branch_text_counts_the_steps_strength_leaves(qtbot, tmp_path) -> None:
    dialog = BranchDialog(_run(tmp_path, strength=0.5), 12)
    qtbot.addWidget(dialog)
    dialog.steps.setValue(20)  # floor(20 × 0.5) + 1 run
    assert dialog.reuse_label.text().startswith("Diffusion starts over at step 1 of 11:")
    dialog.strength.setValue(1.0)
    assert dialog.reuse_label.text().startswith("Diffusion starts over at step 1 of 20:")
