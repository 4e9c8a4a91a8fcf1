"""The selftest as a plain function: tiny random-weight klein models, one inpainting job through
every stage, and a report of the device each stage really ran on (printing is app/cli's)."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.paths import AppPaths
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.failures import Failure

SELFTEST_STEPS = 4
SELFTEST_SIZE = 128
CACHE_BYTES = 64 * 1024 * 1024


@dataclass
class SelftestReport:
    """What the selftest saw; run_dir is kept (for its logs) only when it failed."""

    requested_device: str
    ok: bool = False
    devices: dict[str, str] = field(default_factory=dict)  # stage -> the engine's device
    seconds: dict[str, float] = field(default_factory=dict)
    cached: list[str] = field(default_factory=list)
    seconds_per_step: float | None = None
    steps: int | None = None
    seconds_total: float = 0.0
    run_dir: Path | None = None
    failure: Failure | None = None
    terminal: ev.Event | None = None  # the run's terminal event

    def mismatched(self) -> list[str]:
        """Stages that ran on another device than the one asked for."""
        want = self.requested_device.lower()
        return [
            s for s, d in self.devices.items() if not d.lower().replace(" ", "").startswith(want)
        ]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ok": self.ok,
            "requested_device": self.requested_device,
            "devices": self.devices,
            "seconds": self.seconds,
            "cached": self.cached,
            "seconds_per_step": self.seconds_per_step,
            "steps": self.steps,
            "seconds_total": self.seconds_total,
            "run_dir": None if self.run_dir is None else str(self.run_dir),
            "failed": None,
        }
        if self.failure is not None:
            data["failed"] = {
                "kind": str(self.failure.kind),
                "stage": self.failure.stage,
                "detail": self.failure.detail,
                "log": None if self.failure.log_path is None else str(self.failure.log_path),
            }
        return data


def selftest_images(folder: Path) -> tuple[Path, Path]:
    """A small gradient picture and a square mask in `folder` (image.png, mask.png)."""
    import numpy as np
    from PIL import Image

    size = SELFTEST_SIZE
    y, x = np.mgrid[0:size, 0:size]
    image = np.stack([x * 2, y * 2, (x + y)], axis=-1).astype(np.uint8)
    mask = np.zeros((size, size), np.uint8)
    mask[size // 4 : 3 * size // 4, size // 4 : 3 * size // 4] = 255
    folder.mkdir(parents=True, exist_ok=True)
    Image.fromarray(image).save(folder / "image.png")
    Image.fromarray(mask).save(folder / "mask.png")
    return folder / "image.png", folder / "mask.png"


def selftest(
    paths: AppPaths,
    device: str = "cpu",
    engine: Path | None = None,
    on_event: Callable[[ev.Event], object] | None = None,
    control: RunControl | None = None,
) -> SelftestReport:
    """Generates the tiny models, runs every stage on `device`, and reports; `on_event` sees
    each event as it comes (the CLI prints progress with it)."""
    from app.engine.tiny_models import generate_models
    from app.pipeline.cache.store import StageCache
    from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
    from app.pipeline.runner import Pipeline

    report = SelftestReport(requested_device=device)
    started = time.monotonic()
    models = generate_models(paths.cache_dir / "selftest-models")
    pipeline = Pipeline(paths, engine)
    paths.cache_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="selftest-", dir=paths.cache_dir))
    pipeline.cache = StageCache(work / "cache", CACHE_BYTES)  # its own: every stage runs
    image, mask = selftest_images(work / "inputs")
    spec = JobSpec(
        models=ModelFiles(str(models.diffusion), str(models.llm), str(models.vae)),
        prompt="a small red house",
        image=str(image),
        mask=str(mask),
        steps=SELFTEST_STEPS,
        preview="none",
        devices=DeviceChoice(llm=device, diffusion=device, vae=device),
    )
    run = pipeline.create_run(spec, work / "run")
    events = pipeline.execute(run.dir, control or RunControl())
    try:
        for event in events:
            _collect(report, event)
            if on_event is not None:
                on_event(event)
    finally:
        events.close()  # stops an engine still running
    report.seconds_total = round(time.monotonic() - started, 2)
    report.ok = isinstance(report.terminal, ev.RunFinished)
    if report.ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        report.run_dir = run.dir  # a failed run stays for its logs
    return report


def _collect(report: SelftestReport, event: ev.Event) -> None:
    match event:
        case ev.DeviceReported(stage=stage, device=device):
            report.devices[stage] = device
        case ev.StageFinished(stage=stage, seconds=seconds, cached=cached):
            report.seconds[stage] = round(seconds, 3)
            if cached:
                report.cached.append(stage)
        case ev.StepProgressed(seconds_per_step=sps, steps=steps):
            report.seconds_per_step = round(sps, 4)
            report.steps = steps
        case ev.RunFailed():
            report.failure = event.failure
            report.terminal = event
        case ev.RunFinished() | ev.RunSuspended() | ev.RunCancelled():
            report.terminal = event
        case _:
            pass
