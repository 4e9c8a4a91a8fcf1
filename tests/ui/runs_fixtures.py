"""Runs made on the real pipeline for the runs UI tests: a photo and mask on disk, runs
stopped after a step, finished runs, and the real main window with the generation panel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt

from app.core.paths import app_paths
from app.core.settings import Settings
from app.imaging.io import encode_png, save_png_atomic
from app.jobs.job_form import JobForm
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.runner import Pipeline
from tests.engine.pause_hook import suspend_at
from tests.models.forms import tiny_job_form

RUN_TIMEOUT_MS = 180_000  # a whole run of the tiny models, on a busy machine


def write_photo(folder: Path, width: int = 128, height: int = 96) -> tuple[Path, Path]:
    """A gradient photo and a rectangular mask as PNG files; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    y, x = np.mgrid[0:height, 0:width]
    image = np.stack([x * 255 // width, y * 255 // height, (x * y) % 256], -1).astype(np.uint8)
    mask = np.zeros((height, width), np.uint8)
    mask[height // 4 : height * 3 // 4, width // 4 : width * 3 // 4] = 255
    image_path, mask_path = folder / "photo.png", folder / "photo-mask.png"
    image_path.write_bytes(encode_png(image))
    mask_path.write_bytes(encode_png(mask))
    return image_path, mask_path


def spec(tiny_models, prompt: str, steps: int, image: Path | None = None, mask: Path | None = None):
    models = ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))
    return JobSpec(
        models=models,
        devices=DeviceChoice(threads=1),
        prompt=prompt,
        steps=steps,
        width=128,
        height=96,
        image=str(image) if image else None,
        mask=str(mask) if mask else None,
    )


def stopped_run(pipeline: Pipeline, job: JobSpec, after_step: int) -> tuple[Path, int]:
    """A run suspended after step `after_step` (tests/engine/pause_hook): its folder and the
    step it stopped after."""
    run = pipeline.create_run(job)
    last = suspend_at(pipeline, run.dir, after_step)[-1]
    assert isinstance(last, ev.RunSuspended), last
    return run.dir, last.step


def finished_run(pipeline: Pipeline, job: JobSpec) -> Path:
    run = pipeline.create_run(job)
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]
    return run.dir


def job_form(tiny_models, prompt: str = "a new door", steps: int = 4) -> JobForm:
    return tiny_job_form(tiny_models, prompt, steps)


def main_window(
    qtbot, sd_stage: Path, tiny_models, *, show: bool = True, form: JobForm | None = None
):
    """The real main window with the generation panel (and so the Runs dock) installed."""
    from app.ui.shell.features import install_generation_panel
    from app.ui.shell.main_window import MainWindow

    settings = Settings(engine_path=str(sd_stage))
    window = MainWindow(settings, job_form=form or job_form(tiny_models))
    qtbot.addWidget(window)
    install_generation_panel(window, app_paths(), settings)
    if show:
        window.show()
    return window


def photo_window(qtbot, sd_stage: Path, form: JobForm, path: Path, picture, mask):
    """The main window at 1280×720 with `picture` saved at `path` and opened, `mask` painted, and
    its generation panel quiet at start (no offer of unfinished runs, no device probe)."""
    window = main_window(qtbot, sd_stage, None, show=False, form=form)
    window.generation_panel._first_show = False
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    save_png_atomic(path, picture)
    assert window.open_image(path)
    window.document.replace_mask("test mask", mask)
    return window


def run_all(qtbot, window) -> None:
    """Run all, pressed as a user does, waited for to its end: finished, no error shown."""
    panel = window.generation_panel
    qtbot.mouseClick(panel.all_button, Qt.MouseButton.LeftButton)
    model = panel.model
    qtbot.waitUntil(
        lambda: not model.state.busy and not model.session.busy and not model.start_held,
        timeout=RUN_TIMEOUT_MS,
    )
    assert not panel.error_banner.isVisible(), panel.error_banner.text()
    assert model.run is not None and model.run.finished


def pipeline(sd_stage: Path) -> Pipeline:
    return Pipeline(app_paths(), sd_stage, cache_limit_mb=64)
