"""A run the memory plan says cannot fit never starts silently (issue 30): Run all and Add to
queue stop with the plan's verdict in view and offer what would fit (only the masked area at a
size that fits, a smaller size) or to run anyway; a big photo opened for inpainting offers
"Only masked" up front. The plans are plan_job over the klein-9B figures on an 8 GB card
(tests/ui/test_plan_pane.py), delivered through the panel's MemoryPlan as the engine's are.

The guard is a gate, not a race (issue 41): a start pressed before the plan is ready waits
for it ("Checking the memory plan…"), and an offer taken re-plans the job and starts it."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.pipeline.api import DeviceInfo
from app.pipeline.execute.job_plan import plan_job
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    FIT_MEMORY,
    LLM_MODEL,
    MASKED_TARGET,
    MAX_ALLOC_MB,
    ONLY_MASKED,
    PROMPT,
    VAE_DEVICE,
    VAE_MODEL,
)
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import JobPlan, unfit_of
from app.ui.generation import fit_guard
from app.ui.generation.fit_guard import (
    ANYWAY_CHOICE,
    ONLY_MASKED_CHOICE,
    UnfitDialog,
)
from app.ui.generation.panel import GenerationPanel
from tests.pipeline.test_fit import CARD
from tests.ui.test_plan_pane import CPU, scaled_planner

W, H = 4000, 3008  # a phone photo
INFOS = {"cpu": CPU, "vulkan0": CARD}


class Planner:
    """plan_job over the card's figures, as the panel's MemoryPlan calls its engine planner;
    `hold()`: each plan waits until `release()` (a plan that takes its time on a busy machine)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.gate = threading.Event()
        self.gate.set()

    def hold(self) -> None:
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    def __call__(
        self, spec: JobSpec, width: int, height: int, infos: Mapping[str, DeviceInfo]
    ) -> JobPlan:
        assert self.gate.wait(30)
        self.calls.append((width, height))
        return plan_job(spec, width, height, scaled_planner, INFOS)


@pytest.fixture
def panel(qtbot, tmp_path: Path) -> GenerationPanel:
    form = JobForm()
    form.update({DIFFUSION_DEVICE.name: "vulkan0", VAE_DEVICE.name: "vulkan0"})
    for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL):  # files that exist: a start is not refused
        (tmp_path / f"{p.name}.gguf").write_bytes(b"")
        form.set(p, str(tmp_path / f"{p.name}.gguf"))
    form.set(PROMPT, "a red door")
    form.set(MAX_ALLOC_MB, 2048)
    model = GenerationModel(form, RunSession(app_paths(), engine=tmp_path / "no-sd-stage"))
    model.devices = [CPU, CARD]
    widget = GenerationPanel(model)
    widget.memory_plan.plan_fn = Planner()
    qtbot.addWidget(widget)
    mask = np.zeros((H, W), np.uint8)
    mask[1000:1200, 1500:1800] = 255
    model.inputs.set_document(np.zeros((H, W, 3), np.uint8), mask)
    return widget


def plan_now(qtbot, panel: GenerationPanel, *, fit_memory: bool = True) -> None:
    """The plan the Devices pane shows for the job as it is now, made and delivered."""
    panel.model.form.set(FIT_MEMORY, fit_memory)
    with qtbot.waitSignal(panel.memory_plan.settled, timeout=20_000):
        panel.memory_plan.refresh()
    assert not panel.memory_plan.pending


def test_run_all_before_the_plan_is_ready_waits_for_it_and_offers_before_any_stage(
    qtbot, panel: GenerationPanel, dialogs, monkeypatch
) -> None:
    """Issue 41: Run all pressed within seconds of opening a 12 MP photo, before its plan is
    ready, started a full-size VAE encode and the offer came minutes later over the running
    job. Now the start waits for the plan, the offer comes before any stage, and "only the
    masked area" re-plans the job and starts it once that plan fits."""
    started: list[str] = []
    monkeypatch.setattr(panel.model, "run_all", lambda: started.append("run"))
    planner = panel.memory_plan.plan_fn
    assert isinstance(planner, Planner)
    planner.hold()
    panel.memory_plan.schedule()  # the photo was just opened: its plan is due
    try:
        panel.all_button.click()
        assert started == []  # no stage starts before the plan is known
        assert not panel.model.state.busy and panel.model.run is None
        assert "Checking the memory plan" in panel.status_label.text()
        assert panel.run_view.progress.bar.format().startswith("Checking the memory plan…")
        assert "running" not in panel.run_view.stage_list.states().values()
        assert not any(isinstance(d, UnfitDialog) for d in dialogs.dialogs)
        monkeypatch.setattr(UnfitDialog, "exec", lambda self: dialogs.dialogs.append(self) or
                            self._choose(ONLY_MASKED_CHOICE))  # fmt: skip
    finally:
        planner.release()
    qtbot.waitUntil(lambda: started == ["run"], timeout=20_000)
    offers = [d for d in dialogs.dialogs if isinstance(d, UnfitDialog)]
    assert len(offers) == 1 and ANYWAY_CHOICE in offers[0].buttons  # the gate's, no other
    assert offers[0].unfit.width * offers[0].unfit.height >= W * H
    # The offer taken re-planned the job it was shown for: only the masked area, and that
    # plan (which fits) let the job start.
    assert panel.model.form.get(ONLY_MASKED)
    assert planner.calls[0] == (W, H) and planner.calls[-1] != (W, H)
    assert unfit_of(panel.memory_plan.last) is None
    assert "Checking the memory plan" not in panel.status_label.text()


def test_a_declined_offer_starts_nothing(qtbot, panel: GenerationPanel, monkeypatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(panel.model, "run_all", lambda: started.append("run"))
    panel.memory_plan.schedule()
    panel.all_button.click()  # the offer is declined (the dialogs fixture: Rejected)
    qtbot.waitUntil(lambda: "Nothing ran" in panel.status_label.text(), timeout=20_000)
    assert started == [] and not panel.model.form.get(ONLY_MASKED)


def test_run_all_stops_with_the_verdict_and_offers_only_masked(
    qtbot, panel: GenerationPanel, dialogs, monkeypatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(panel.model, "run_all", lambda: started.append("run"))
    plan_now(qtbot, panel)
    unfit = unfit_of(panel.memory_plan.last)
    assert unfit is not None and unfit.slow and unfit.stage == "diffuse"
    panel.all_button.click()
    assert started == []  # it did not start silently
    dialog = dialogs.dialogs[-1]
    assert isinstance(dialog, UnfitDialog)
    assert "4000×3008" in fit_guard.verdict_text(dialog.unfit)
    assert set(dialog.buttons) == {ONLY_MASKED_CHOICE, ANYWAY_CHOICE}
    # "Only the masked area": the form says so, at a target that fits; the job is planned
    # again and starts once that plan fits.
    monkeypatch.setattr(UnfitDialog, "exec", lambda self: self._choose(ONLY_MASKED_CHOICE))
    panel.all_button.click()
    assert panel.model.form.get(ONLY_MASKED)
    assert panel.model.form.get(MASKED_TARGET) <= unfit.masked_target()
    qtbot.waitUntil(lambda: started == ["run"], timeout=20_000)
    assert unfit_of(panel.memory_plan.last) is None
    # The plan is known and fits: Run all starts without asking.
    panel.all_button.click()
    assert started == ["run", "run"]


def test_run_anyway_starts_and_a_job_that_cannot_fit_at_all_is_said_so(
    qtbot, panel: GenerationPanel, monkeypatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(panel.model, "run_all", lambda: started.append("run"))
    plan_now(qtbot, panel, fit_memory=False)  # no memory saver may be tried: cannot fit at all
    unfit = unfit_of(panel.memory_plan.last)
    assert unfit is not None and not unfit.slow
    text = fit_guard.verdict_text(unfit)
    assert "cannot fit" in text and "vulkan0" in text
    monkeypatch.setattr(UnfitDialog, "exec", lambda self: self._choose(ANYWAY_CHOICE))
    panel.all_button.click()
    assert started == ["run"]


def test_a_big_photo_offers_only_masked_up_front(qtbot, panel: GenerationPanel, dialogs) -> None:
    plan_now(qtbot, panel)
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
    planner = Planner()
    panel.memory_plan.plan_fn = planner
    planner.hold()
    panel.memory_plan.schedule()
    try:
        controller.add_button.click()  # before the plan is ready: it waits for it
        assert added == [] and not dialogs.dialogs
        assert "Checking the memory plan" in panel.status_label.text()
    finally:
        planner.release()
    offered = lambda: any(isinstance(d, UnfitDialog) for d in dialogs.dialogs)  # noqa: E731
    qtbot.waitUntil(offered, timeout=20_000)
    assert unfit_of(panel.memory_plan.last) is not None
    assert added == [] and controller.add_button.isEnabled()  # nothing is being added
    assert controller.model.views == []
