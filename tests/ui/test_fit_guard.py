"""A run the memory plan says cannot fit never starts silently (issue 30): Run all and Add to
queue stop with the plan's verdict in view and offer what would fit (only the masked area at a
size that fits, a smaller size) or to run anyway; a big photo opened for inpainting offers
"Only masked" up front. The plans are plan_job over the klein-9B figures on an 8 GB card
(tests/ui/test_plan_pane.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.pipeline.execute.fit_guard import unfit_of
from app.pipeline.execute.job_plan import plan_job
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    FIT_MEMORY,
    MASKED_TARGET,
    MAX_ALLOC_MB,
    ONLY_MASKED,
    VAE_DEVICE,
)
from app.pipeline.job.spec import spec_from_values
from app.ui.generation import fit_guard
from app.ui.generation.fit_guard import ANYWAY_CHOICE, ONLY_MASKED_CHOICE, UnfitDialog
from app.ui.generation.panel import GenerationPanel
from tests.pipeline.test_fit import CARD
from tests.ui.test_plan_pane import CPU, scaled_planner

W, H = 4000, 3008  # a phone photo


@pytest.fixture
def panel(qtbot, tmp_path: Path) -> GenerationPanel:
    form = JobForm()
    form.update({DIFFUSION_DEVICE.name: "vulkan0", VAE_DEVICE.name: "vulkan0"})
    form.set(MAX_ALLOC_MB, 2048)
    model = GenerationModel(form, RunSession(app_paths(), engine=tmp_path / "no-sd-stage"))
    model.devices = [CPU, CARD]
    widget = GenerationPanel(model)
    qtbot.addWidget(widget)
    mask = np.zeros((H, W), np.uint8)
    mask[1000:1200, 1500:1800] = 255
    model.inputs.set_document(np.zeros((H, W, 3), np.uint8), mask)
    return widget


def plan_now(panel: GenerationPanel, *, fit_memory: bool = True) -> None:
    """The plan the Devices pane would show for the size the model gets now."""
    model = panel.model
    model.form.set(FIT_MEMORY, fit_memory)
    values = model.form.values()
    spec = spec_from_values(values, image="p.png", mask="m.png")
    w, h = panel.memory_plan.current_size()
    infos = {"cpu": CPU, "vulkan0": CARD}
    panel.memory_plan.last = plan_job(spec, w, h, scaled_planner, infos)


def test_run_all_stops_with_the_verdict_and_offers_only_masked(
    panel: GenerationPanel, dialogs, monkeypatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(panel.model, "run_all", lambda: started.append("run"))
    plan_now(panel)
    unfit = unfit_of(panel.memory_plan.last)
    assert unfit is not None and unfit.slow and unfit.stage == "diffuse"
    panel.all_button.click()
    assert started == []  # it did not start silently
    dialog = dialogs.dialogs[-1]
    assert isinstance(dialog, UnfitDialog)
    assert "4000×3008" in fit_guard.verdict_text(dialog.unfit)
    assert set(dialog.buttons) == {ONLY_MASKED_CHOICE, ANYWAY_CHOICE}
    # "Only the masked area": the form says so, at a target that fits; nothing starts yet.
    monkeypatch.setattr(UnfitDialog, "exec", lambda self: self._choose(ONLY_MASKED_CHOICE))
    panel.all_button.click()
    assert started == [] and panel.model.form.get(ONLY_MASKED)
    assert panel.model.form.get(MASKED_TARGET) <= unfit.masked_target()
    # The plan for the masked area fits: Run all starts without asking.
    plan_now(panel)
    assert unfit_of(panel.memory_plan.last) is None
    panel.all_button.click()
    assert started == ["run"]


def test_run_anyway_starts_and_a_job_that_cannot_fit_at_all_is_said_so(
    panel: GenerationPanel, monkeypatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(panel.model, "run_all", lambda: started.append("run"))
    plan_now(panel, fit_memory=False)  # no memory saver may be tried: it cannot fit at all
    unfit = unfit_of(panel.memory_plan.last)
    assert unfit is not None and not unfit.slow
    text = fit_guard.verdict_text(unfit)
    assert "cannot fit" in text and "vulkan0" in text
    monkeypatch.setattr(UnfitDialog, "exec", lambda self: self._choose(ANYWAY_CHOICE))
    panel.all_button.click()
    assert started == ["run"]


def test_a_big_photo_offers_only_masked_up_front(panel: GenerationPanel, dialogs) -> None:
    plan_now(panel)
    panel.memory_plan.planned.emit(panel.memory_plan.last)
    dialog = dialogs.dialogs[-1]
    assert isinstance(dialog, UnfitDialog) and ONLY_MASKED_CHOICE in dialog.buttons
    assert ANYWAY_CHOICE not in dialog.buttons
    panel.memory_plan.planned.emit(panel.memory_plan.last)
    assert (
        dialogs.dialogs.count(dialog) == 1
        and len([d for d in dialogs.dialogs if isinstance(d, UnfitDialog)]) == 1
    )  # once per photo


def test_add_to_queue_stops_with_the_verdict(qtbot, sd_stage, tiny_models, dialogs) -> None:
    from tests.ui.runs_fixtures import main_window

    window = main_window(qtbot, sd_stage, tiny_models, show=False)
    panel, controller = window.generation_panel, window.queue_controller
    added: list[int] = []
    controller.model.added.connect(added.append)
    form = panel.model.form
    form.update({DIFFUSION_DEVICE.name: "vulkan0", VAE_DEVICE.name: "vulkan0"})
    form.update({"width": 4096, "height": 4096})
    spec = spec_from_values(form.values())
    w, h = panel.memory_plan.current_size()
    panel.memory_plan.last = plan_job(spec, w, h, scaled_planner, {"cpu": CPU, "vulkan0": CARD})
    assert unfit_of(panel.memory_plan.last) is not None
    controller.add_button.click()
    assert any(isinstance(d, UnfitDialog) for d in dialogs.dialogs)
    assert added == [] and controller.add_button.isEnabled()  # nothing is being added
