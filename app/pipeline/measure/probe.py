"""Measure this computer: every stage of the job on every device the engine lists, at the
user's sizes, with the user's model files (or shape-only models of the same size), as one
report (app/pipeline/measure/report.py writes it as Markdown + JSON and picks the settings).

What is measured, per device: llm-encode's wall time; diffuse s/step per size with flash
attention off and on; vae-decode at the largest size untiled and tiled; each stage's planned
memory on the device (`sd-stage … --plan`) against what the run logged (ggml's buffer lines,
`-v`); the largest size of the user's aspect that fits the device (job_plan.largest_fast_size).
The device line and the driver's facts come from `sd-stage --list-devices` (its JSON and the
backend's own line: shared memory, int dot, fp16, …).

Each stage runs in its own engine process with dummy inputs (job_plan.stage_args: a zero
conditioning, a zero latent), so nothing needs a prompt or a picture and no network. A cancel
(threading.Event) ends the stage in hand (its process stopped and reaped) and the rest is
skipped: nothing is left running. bench/gpu_check.py runs its stages through `run_timed` and
reads memory with `ggml_buffer_bytes` (one owner).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.engine.argv import StageArgs, build_argv
from app.engine.devices import DeviceFacts, list_devices
from app.engine.events import Progress
from app.engine.listing import run_engine_once
from app.engine.plan import plan_stage
from app.engine.process import StageProcess, engine_environment
from app.engine.stage import Stage
from app.pipeline.api import DeviceInfo
from app.pipeline.execute.failure_kinds import failure_for
from app.pipeline.execute.fit import CPU, StageSettings
from app.pipeline.execute.job_plan import engine_planner_for, largest_fast_size, stage_args
from app.pipeline.failures import Failure, FailureKind, json_values
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles

STAGE_TIMEOUT_S = 3600.0
MIB = 1024 * 1024
BUFFER_LINE = re.compile(r"(\S+) (compute|params backend) buffer size[:= ]+([0-9.]+) ?MB\((\w+)\)")
DRIVER_LINE = re.compile(r"^ggml_(\w+): (\d+) = (.*)$", re.MULTILINE)
PROMPT = "a red fox in the snow"  # what the text encoder reads (its length is what costs)


def failure_data(failure: Failure) -> dict[str, object]:
    """A stage's failure as the report keeps it (JSON): its kind, the error's templates and
    values, for the window to word in the user's language (`error` keeps the English line)."""
    return {"kind": str(failure.kind), "message": failure.message,
            "values": json_values(failure.values), "fix": failure.fix}  # fmt: skip


def failure_of(data: Mapping[str, Any], stage: str, detail: str) -> Failure:
    """The Failure a report's `failure` describes (an unknown kind reads as a bug of ours)."""
    kind = str(data.get("kind", ""))
    values = data.get("values")
    return Failure(
        FailureKind(kind) if kind in FailureKind._value2member_map_ else FailureKind.BUG,
        stage, detail, None, str(data.get("message") or ""),
        json_values(values) if isinstance(values, dict) else {}, str(data.get("fix") or ""),
    )  # fmt: skip


class MeasureCancelled(Exception):
    """The user cancelled; the stage in hand was stopped."""


@dataclass(frozen=True)
class MeasureSetup:
    engine: Path
    models: ModelFiles
    models_note: str  # "your model files", "shape-only models of klein 9B", "tiny test models"
    sizes: tuple[tuple[int, int], ...]  # the user's sizes, the largest last
    steps: int = 2
    threads: int = 0  # 0: the engine's own choice
    devices: tuple[str, ...] | None = None  # None: every device the engine lists


@dataclass
class StageRun:
    wall_s: float
    steps: list[float] = field(default_factory=list)  # seconds of each step (diffuse)
    log_text: str = ""


def ggml_buffer_bytes(log_text: str, where: str) -> int | None:
    """ggml's own count of a run's buffers in `where` ("VRAM" or "RAM"): each runner's weights
    and first compute buffer (the `-v` log's "… buffer size = X MB(VRAM)" lines)."""
    seen: dict[tuple[str, str], float] = {}
    for found in BUFFER_LINE.finditer(log_text):
        runner, kind, mb, place = found.groups()
        if place.upper() == where:
            seen.setdefault((runner, kind), float(mb))
    return round(sum(seen.values()) * MIB) if seen else None


def run_timed(
    engine: Path,
    args: StageArgs,
    log: Path,
    env: Mapping[str, str] | None = None,
    cancel: threading.Event | None = None,
) -> StageRun:
    """One stage, timed, with ggml's buffer lines in its log (-v); a set `cancel` stops it
    (terminate, then kill) and raises MeasureCancelled."""
    argv = [*build_argv(engine, args), "-v"]
    started = time.perf_counter()
    steps: list[float] = []
    with StageProcess(argv, log_path=log, env=env) as proc:
        stop = threading.Event()

        def watch() -> None:
            while cancel is not None and not stop.wait(0.2):
                if cancel.is_set():
                    proc.stop(grace_s=0)
                    return

        watcher = threading.Thread(target=watch, name="measure-cancel", daemon=True)
        watcher.start()
        try:
            for event in proc.events(idle_timeout_s=STAGE_TIMEOUT_S):
                if isinstance(event, Progress):
                    steps.append(event.seconds)
            if cancel is not None and cancel.is_set():
                raise MeasureCancelled()
            proc.result(STAGE_TIMEOUT_S)
        finally:
            stop.set()
            watcher.join()
    wall = time.perf_counter() - started
    return StageRun(wall, steps, log.read_text(encoding="utf-8", errors="replace"))


def driver_lines(engine: Path, env: Mapping[str, str] | None = None) -> dict[int, dict[str, str]]:
    """The backend's own device lines of `--list-devices` ("ggml_vulkan: 0 = NAME | uma: 0 |
    fp16: 1 | … | shared memory: 32768 | int dot: 0 | …") by device index, as key → value."""
    done = run_engine_once(engine, ["--list-devices"], "device list", env)
    facts: dict[int, dict[str, str]] = {}
    for found in DRIVER_LINE.finditer(done.stderr.decode("utf-8", "replace")):
        backend, index, rest = found.groups()
        parts = [p.strip() for p in rest.split("|")]
        one = {"backend": backend, "device": parts[0]}
        for part in parts[1:]:
            key, _, value = part.partition(":")
            if key.strip():
                one[key.strip()] = value.strip()
        facts[int(index)] = one
    return facts


@dataclass(frozen=True)
class MeasureStep:
    """What the measurement does now, as data: the CLI says it in English (`str()`), the window
    in the user's language (ui/shell/measure_dialog.step_text)."""

    device: str
    stage: str  # llm-encode, diffuse, vae-decode, or LARGEST (the largest size that fits)
    width: int = 0
    height: int = 0
    flash_attention: bool | None = None  # diffuse
    tiled: bool | None = None  # vae-decode

    def __str__(self) -> str:
        if self.stage == LARGEST:
            return f"{self.device}: the largest size that fits"
        size = f" {self.width}×{self.height}" if self.width else ""
        if self.flash_attention is not None:
            return f"{self.device}: {self.stage}{size}, flash attention " + (
                "on" if self.flash_attention else "off"
            )
        if self.tiled is not None:
            return f"{self.device}: {self.stage}{size}, tiled {self.tiled}"
        return f"{self.device}: {self.stage}{size}"


LARGEST = "largest"
Progress_ = Callable[[int, int, MeasureStep, float | None], None]  # done, total, now, ETA s


class Measurement:
    """Runs the measurements of a MeasureSetup into `scratch`; `report()` is the result."""

    def __init__(
        self,
        setup: MeasureSetup,
        scratch: Path,
        on_progress: Progress_ | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.setup, self.scratch = setup, scratch
        self.on_progress = on_progress
        self.cancel = cancel or threading.Event()
        self.devices: list[DeviceFacts] = []
        self.driver: dict[str, dict[str, str]] = {}
        self.rows: list[dict[str, object]] = []
        self.largest: dict[str, list[int] | None] = {}
        self._done = 0
        self._total = 0
        self._started = time.monotonic()

    # --- the plan of work
    def _device_names(self) -> list[str]:
        names = [d.name.lower() for d in self.devices]
        wanted = self.setup.devices
        return [n for n in names if wanted is None or n in wanted]

    def _spec(self, device: str, *, fa: bool = False, tiled: bool = False) -> JobSpec:
        s = self.setup
        return JobSpec(
            models=s.models,
            prompt=PROMPT,
            steps=s.steps,
            seed=1,
            devices=DeviceChoice(
                llm=device, diffusion=device, vae=device, threads=s.threads,
                flash_attention=fa, vae_tiling=tiled,
            ),
        )  # fmt: skip

    def run(self) -> None:
        env = engine_environment()
        self.devices = list_devices(self.setup.engine, env)
        lines = driver_lines(self.setup.engine, env)
        gpus = [d for d in self.devices if d.name.lower() != CPU]
        for index, device in enumerate(gpus):
            if index in lines:
                self.driver[device.name.lower()] = lines[index]
        names = self._device_names()
        per_device = 1 + 2 * len(self.setup.sizes) + 2 + 1
        self._total = per_device * len(names)
        for name in names:
            self._device(name)

    def _step(self, what: MeasureStep) -> None:
        if self.cancel.is_set():
            raise MeasureCancelled()
        eta = None
        if self._done:
            eta = (time.monotonic() - self._started) / self._done * (self._total - self._done)
        if self.on_progress is not None:
            self.on_progress(self._done, self._total, what, eta)

    def _finish_step(self) -> None:
        self._done += 1

    def _device(self, device: str) -> None:
        folder = self.scratch / device
        folder.mkdir(parents=True, exist_ok=True)
        largest = self.setup.sizes[-1]
        self._step(MeasureStep(device, Stage.LLM_ENCODE))
        self._stage(Stage.LLM_ENCODE, device, StageSettings(device=device), largest, folder)
        for width, height in self.setup.sizes:
            for fa in (False, True):
                self._step(MeasureStep(device, Stage.DIFFUSE, width, height, flash_attention=fa))
                settings = StageSettings(device=device, flash_attention=fa)
                self._stage(Stage.DIFFUSE, device, settings, (width, height), folder)
        for tiled in (False, True):
            self._step(MeasureStep(device, Stage.VAE_DECODE, *largest, tiled=tiled))
            settings = StageSettings(device=device, vae_tiling=tiled)
            self._stage(Stage.VAE_DECODE, device, settings, largest, folder)
        self._step(MeasureStep(device, LARGEST))
        self._fits(device, folder)
        self._finish_step()

    def _stage(
        self, stage: str, device: str, settings: StageSettings, size: tuple[int, int], folder: Path
    ) -> None:
        width, height = size
        spec = self._spec(device, fa=settings.flash_attention, tiled=settings.vae_tiling)
        args = stage_args(stage, spec, width, height, settings, folder, [])
        env = engine_environment(args.common.environment())
        plan = plan_stage(self.setup.engine, args.to_argv(), env).on(device)
        fa, tiled = int(settings.flash_attention), int(settings.vae_tiling)
        tag = f"{stage}-{width}x{height}-fa{fa}-t{tiled}"
        row: dict[str, object] = {
            "stage": stage,
            "device": device,
            "size": [width, height] if stage != Stage.LLM_ENCODE else None,
            "flash_attention": settings.flash_attention if stage == Stage.DIFFUSE else None,
            "vae_tiling": settings.vae_tiling if stage == Stage.VAE_DECODE else None,
            "planned_bytes": plan.total_bytes if plan else None,
        }
        try:
            run = run_timed(self.setup.engine, args, folder / f"{tag}.log", env, self.cancel)
        except MeasureCancelled:
            raise
        except Exception as exc:
            row.update(error=str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__)
            row.update(failure=failure_data(failure_for(exc, stage)))
        else:
            where = "RAM" if device == CPU else "VRAM"
            row.update(
                wall_s=round(run.wall_s, 3),
                s_per_step=round(sum(run.steps) / len(run.steps), 4) if run.steps else None,
                measured_bytes=ggml_buffer_bytes(run.log_text, where),
            )
        self.rows.append(row)
        self._finish_step()

    def _fits(self, device: str, folder: Path) -> None:
        facts = next(d for d in self.devices if d.name.lower() == device)
        info = DeviceInfo(
            device, facts.description, facts.total_bytes, facts.free_bytes, facts.max_alloc_bytes
        )
        spec = self._spec(device, fa=True)
        width, height = self.setup.sizes[-1]
        plans = folder / "plans"
        plans.mkdir(exist_ok=True)
        planner = engine_planner_for(self.setup.engine, spec, plans)
        try:
            size = largest_fast_size(spec, width, height, planner, {device: info})
        except Exception:
            size = None
        self.largest[device] = list(size) if size else None
