"""The memory plan in the Devices pane: planned off the UI thread, debounced, the figures of
the plan beside the size, the fitted settings, the largest size that fits and the "only
masked" suggestion; fit_memory and max_alloc_mb bound to the form. The planner is plan_job
over the klein-9B figures of issue 11 (tests/pipeline/test_fit.py) on an 8 GB card."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.memory_plan import NO_MODELS, MemoryPlan
from app.jobs.run_session import RunSession
from app.pipeline.api import DeviceInfo
from app.pipeline.execute.job_plan import plan_job
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    FIT_MEMORY,
    FLASH_ATTENTION,
    HEIGHT,
    LLM_MODEL,
    MAX_ALLOC_MB,
    VAE_DEVICE,
    VAE_MODEL,
    WIDTH,
)
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import JobPlan
from app.ui.generation.devices import DevicesPane
from tests.pipeline.test_fit import CARD, DIT_COMPUTE, planner

MIB = 1024 * 1024
SHOTS = Path(os.environ.get("STEPWISE_SHOTS", "/tmp/stepwise-shots"))
CPU = DeviceInfo("cpu", "CPU", total_bytes=32 * 1024**3)


def scaled_planner(stage: str, w: int, h: int):
    """The measured figures at the four sizes; other sizes scaled from 1024² by pixels. The
    8B text encoder: 4,599 MB of weights with a Q8_0 token embedding (631 MB, its largest)."""
    from app.engine.plan import DevicePlan, StagePlan

    if stage == "llm-encode":
        emb = 631 * MIB
        return lambda s: StagePlan(
            stage, w, h, {}, (DevicePlan(s.device, 4599 * MIB, 150 * MIB, emb, emb, 4749 * MIB),)
        )
    if (w, h) in DIT_COMPUTE:
        return planner(stage, w, h)

    base = planner(stage, 1024, 1024)
    k = (w * h) / (1024 * 1024)

    def plan(s):
        p = base(s)
        devs = tuple(
            DevicePlan(d.device, d.weights_bytes, int(d.compute_bytes * k),
                       d.largest_alloc_bytes, int(d.largest_tensor_bytes * (k if not
                       (s.flash_attention or s.vae_tiling) else 1)),
                       d.weights_bytes + int(d.compute_bytes * k))
            for d in p.devices
        )  # fmt: skip
        return StagePlan(stage, w, h, {}, devs)

    return plan


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, bool]] = []
        self.threads: set[str] = set()

    def __call__(
        self, spec: JobSpec, width: int, height: int, infos: Mapping[str, DeviceInfo]
    ) -> JobPlan:
        self.calls.append((width, height, spec.devices.flash_attention))
        self.threads.add(threading.current_thread().name)
        return plan_job(spec, width, height, scaled_planner, infos)


@pytest.fixture
def model(tmp_path: Path) -> GenerationModel:
    form = JobForm()
    for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL):
        form.set(p, str(tmp_path / f"{p.name}.gguf"))
    form.set(DIFFUSION_DEVICE, "vulkan0")
    form.set(VAE_DEVICE, "vulkan0")
    form.set(FLASH_ATTENTION, False)
    form.set(MAX_ALLOC_MB, 2048)
    form.set(WIDTH, 1024)
    form.set(HEIGHT, 1024)
    m = GenerationModel(form, RunSession(app_paths(), engine=tmp_path / "no-sd-stage"))
    m.devices = [CPU, CARD]
    return m


def pane_with(qtbot, model: GenerationModel, recorder: Recorder) -> DevicesPane:
    plan = MemoryPlan(model, recorder)
    pane = DevicesPane(model, memory_plan=plan)
    plan.setParent(pane)
    qtbot.addWidget(pane)
    pane.set_devices(model.devices)
    return pane


def wait_plan(qtbot, pane: DevicesPane) -> JobPlan:
    with qtbot.waitSignal(pane.memory_plan.planned, timeout=10_000) as blocker:
        pass
    return blocker.args[0]


def test_the_plan_is_shown_with_the_fitted_settings(qtbot, model) -> None:
    recorder = Recorder()
    pane = pane_with(qtbot, model, recorder)
    plan = wait_plan(qtbot, pane)
    assert recorder.calls == [(1024, 1024, False)]
    assert threading.main_thread().name not in recorder.threads  # off the UI thread
    text = pane.plan_view.label.text()
    # 5,011 + 1,422 MiB (FA) of 7.8 GiB free; the largest tensor 180 MiB of the 2 GiB cap
    assert (
        "diffuse at 1024×1024 on vulkan0: 4.9 GB weights + 1.4 GB compute of 7.8 GB; "
        "largest allocation 0.2 GB of 2.0 GB"
    ) in text
    assert (
        "text encoder on the CPU: 4.5 GB weights + 0.1 GB compute of 32.0 GB; "
        "largest allocation 0.6 GB\n"
    ) in text
    assert "diffuse: fitted — flash attention on" in text
    assert "VAE decode: fitted — VAE tiled, 32-cell tiles" in text
    assert "text encoder: fits as chosen" in text
    assert plan.largest is not None
    # FA: 5,011 + 1,422 MiB · (w·h / 1024²) within the 7,193 MiB budget up to 1264² (1.6 Mpx)
    assert plan.largest == (1264, 1264) and not plan.too_large
    assert "Largest size without slow settings at this aspect ratio: 1264×1264" in text
    assert "Only masked" not in text
    model.form.set(WIDTH, 1600)
    model.form.set(HEIGHT, 1600)
    plan = wait_plan(qtbot, pane)
    text = pane.plan_view.label.text()
    assert plan.too_large and "turn on “Only masked”" in text
    # FA alone no longer fits (5.0 + 3.5 GB): the graph cut, which the pane calls slow
    assert "diffuse: fitted — flash attention on, weights partly in RAM (slow)" in text
    pane.memory_plan.wait()


def test_changes_are_debounced_and_only_the_newest_plan_shows(qtbot, model) -> None:
    recorder = Recorder()
    pane = pane_with(qtbot, model, recorder)
    wait_plan(qtbot, pane)
    for width in (512, 640, 768):  # typed in quick succession
        model.form.set(WIDTH, width)
    model.form.set(HEIGHT, 1024)
    plan = wait_plan(qtbot, pane)
    assert recorder.calls[1:] == [(768, 1024, False)]
    assert (plan.width, plan.height) == (768, 1024)
    assert "diffuse at 768×1024" in pane.plan_view.label.text()
    pane.memory_plan.wait()


def test_the_switches_are_bound_and_replan(qtbot, model) -> None:
    recorder = Recorder()
    pane = pane_with(qtbot, model, recorder)
    wait_plan(qtbot, pane)
    assert pane.max_alloc.value() == 2048 and pane.fit_memory.isChecked()
    pane.max_alloc.setValue(1024)
    assert model.form.get(MAX_ALLOC_MB) == 1024
    plan = wait_plan(qtbot, pane)
    decode = plan.fits["vae-decode"]
    assert decode.settings.vae_tile_size == 16  # a 32-cell tile's 1.2 GB im2col > 1 GiB
    pane.fit_memory.setChecked(False)
    assert model.form.get(FIT_MEMORY) is False
    plan = wait_plan(qtbot, pane)
    assert plan.fits["diffuse"].changes == () and not plan.fits["diffuse"].settings.flash_attention
    assert "fits as chosen" in pane.plan_view.label.text() or "—" in pane.plan_view.label.text()
    pane.memory_plan.wait()


def test_without_models_or_engine_it_says_why(qtbot, tmp_path: Path) -> None:
    form = JobForm()
    m = GenerationModel(form, RunSession(app_paths(), engine=tmp_path / "none"))
    failed: list[str] = []
    plan = MemoryPlan(m, lambda *a: pytest.fail("no plan without models"))
    plan.failed.connect(failed.append)
    plan.refresh()
    assert failed == [NO_MODELS]
    pane = DevicesPane(m)
    qtbot.addWidget(pane)
    pane.memory_plan.refresh()
    assert "the engine is not set up to plan" in pane.plan_view.label.text()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_screenshot_of_the_pane(qtbot, model, language: str) -> None:
    from PySide6.QtWidgets import QMainWindow, QScrollArea

    from app.ui.words.i18n import TsTranslator

    translator = TsTranslator("zh_CN") if language == "zh_CN" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    try:
        recorder = Recorder()
        model.form.set(WIDTH, 1216)
        model.form.set(HEIGHT, 832)
        window = QMainWindow()
        qtbot.addWidget(window)
        plan = MemoryPlan(model, recorder, window)
        pane = DevicesPane(model, memory_plan=plan)
        pane.set_devices(model.devices)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(pane)
        window.setCentralWidget(scroll)
        window.resize(1280, 720)
        window.show()
        wait_plan(qtbot, pane)
        qtbot.wait(50)
        text = pane.plan_view.label.text()
        if language == "zh_CN":
            assert "扩散" in text and "权重" in text
        SHOTS.mkdir(parents=True, exist_ok=True)
        assert window.grab().save(str(SHOTS / f"plan_pane_{language}.png"))
        plan.wait()
    finally:
        if translator is not None:
            QCoreApplication.removeTranslator(translator)
