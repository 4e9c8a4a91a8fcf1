"""A fake PipelineAPI for protocol faults only (a failing stage, a stage that never ends until
cancelled, events out of order, an exception inside a step, a stream without a terminal event)
and for timing the UI (a paced stream of real preview PNGs). Everything else is tested on the
real pipeline; tests/pipeline/test_contract.py runs the same scenarios on both.

State lives in memory, keyed by run folder; each folder really exists and gets a result.png.
"""

from __future__ import annotations

import dataclasses
import shutil
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.pipeline import events as ev
from app.pipeline.api import (
    BackgroundDecoder,
    DecodedPreview,
    DeviceInfo,
    EngineCatalog,
    ModelInput,
    RunSnapshot,
    RunSummary,
    SamplerInfo,
    StageSnapshot,
)
from app.pipeline.control import RunControl
from app.pipeline.events import Event, EventStream
from app.pipeline.execute.preview_decoder import decoded_png_name, decoder_wanted
from app.pipeline.failures import Failure, FailureKind
from app.pipeline.job.preflight import check_catalog
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import Fit, JobPlan, StageSettings
from app.pipeline.run.folder import STAGES
from tests.fakes.fake_steps import PreviewWriter, diffuse_steps, write_preview_png

# JobSpec fields that change nothing diffuse computes (branch keeps its checkpoints).
_NEUTRAL = frozenset({"preview", "devices"})
_PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00"
    b"\x00\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe"
    b"\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82"
)


@dataclass
class _FakeRun:
    dir: Path
    id: str
    created: str
    spec: JobSpec
    states: dict[str, str] = field(default_factory=lambda: dict.fromkeys(STAGES, "pending"))
    checkpoints: set[int] = field(default_factory=set)
    last_completed_step: int = 0
    failure: Failure | None = None
    photo_name: str | None = None
    accepted_step: int | None = None

    def __post_init__(self) -> None:
        if self.spec.image is None and not self.spec.refs:
            self.states["vae-encode"] = "skipped"


class _FakeDecoder:
    """A background decoder that decodes nothing: each latent offered becomes a 1-pixel PNG."""

    def __init__(self, out_dir: Path, on_decoded: Callable[[DecodedPreview], None]) -> None:
        self.out_dir, self.on_decoded = out_dir, on_decoded
        self.started = self.stopped = False

    def start(self) -> None:
        self.started = True

    def offer(self, step: int, latent: Path | str) -> None:
        if self.running:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            png = self.out_dir / decoded_png_name(step)
            png.write_bytes(_PNG)
            self.on_decoded(DecodedPreview(step, png, 0.0))

    def watch(self, folder: Path | str) -> None:
        pass  # the fake's diffusion writes no x0 latents

    @property
    def running(self) -> bool:
        return self.started and not self.stopped

    def stop(self, timeout_s: float = 15.0) -> None:
        self.stopped = True


class FakePipeline:
    """PipelineAPI with injectable faults; `step_s` paces the fake diffusion.

    raise_at_step: execute() raises inside that diffusion step (a bug in the pipeline).
    no_terminal: execute() ends without its terminal event (a broken stream).
    preview: writes each step's preview PNG when the spec asks for previews (not "none").
    """

    def __init__(
        self,
        root: Path,
        *,
        fail_stage: str | None = None,
        fail_kind: FailureKind = FailureKind.ENGINE_CRASHED,
        hang_stage: str | None = None,
        out_of_order: bool = False,
        step_s: float = 0.0,
        raise_at_step: int | None = None,
        no_terminal: bool = False,
        preview: PreviewWriter = write_preview_png,
    ) -> None:
        self.root = Path(root)
        self.fail_stage, self.fail_kind = fail_stage, fail_kind
        self.hang_stage, self.out_of_order, self.step_s = hang_stage, out_of_order, step_s
        self.raise_at_step, self.no_terminal, self.preview = raise_at_step, no_terminal, preview
        self._runs: dict[Path, _FakeRun] = {}
        self._lock = threading.Lock()
        self._count = 0

    # --- the engine ---
    def engine_binary(self) -> Path:
        """The fake runs no engine: the one sd-stage finds by default, as a session with no
        engine chosen has (Help ▸ Measure this computer asks for it)."""
        from app.engine.locate import find_sd_stage

        return find_sd_stage()

    def devices(self) -> list[DeviceInfo]:
        return [DeviceInfo("cpu", "fake CPU")]

    def plan(
        self,
        spec: JobSpec,
        size: tuple[int, int] | None = None,
        devices: Sequence[DeviceInfo] | None = None,
        *,
        search: bool = True,
    ) -> JobPlan:
        """Every stage the job runs fits on the CPU, with no figures (the fake plans nothing)."""
        width, height = size or (spec.width, spec.height)
        stages = ["llm-encode", "diffuse", "vae-decode"]
        if spec.image is not None or spec.refs:
            stages.insert(0, "vae-encode")
        fits = {s: Fit(s, StageSettings(), None, None, ()) for s in stages}
        return JobPlan(width, height, fits, None, spec.reference_count, spec.uses_source_ref)

    def preview_decoder(
        self, run_dir: Path, on_decoded: Callable[[DecodedPreview], None]
    ) -> BackgroundDecoder | None:
        run = self._run(run_dir)
        if not decoder_wanted(run.spec.devices):
            return None
        return _FakeDecoder(run.dir / "previews", on_decoded)

    def catalog(self) -> EngineCatalog:
        return EngineCatalog(
            (SamplerInfo("euler", True), SamplerInfo("dpm++2m", False)), ("simple", "discrete")
        )

    # --- runs ---
    def create_run(
        self, spec: JobSpec, run_dir: Path | None = None, *, photo_name: str | None = None
    ) -> RunSnapshot:
        check_catalog(spec, self.catalog())  # as the real one: the engine's samplers
        with self._lock:
            self._count += 1
            run_id = f"fake-{self._count:04d}"
        folder = Path(run_dir) if run_dir is not None else self.root / run_id
        folder.mkdir(parents=True, exist_ok=True)
        run = _FakeRun(folder, run_id, time.strftime("%Y-%m-%dT%H:%M:%SZ"), spec)
        run.photo_name = Path(photo_name).name if photo_name and spec.image else None
        self._runs[folder] = run
        return self._snap(run)

    def snapshot(self, run_dir: Path) -> RunSnapshot:
        return self._snap(self._run(run_dir))

    def update_run(
        self, run_dir: Path, changes: Mapping[str, Any], *, photo_name: str | None = None
    ) -> RunSnapshot:
        run = self._run(run_dir)
        if "image" in changes:
            run.photo_name = Path(photo_name).name if photo_name else None
        changed = dataclasses.replace(run.spec, **dict(changes))
        check_catalog(changed, self.catalog())
        run.spec = changed
        run.accepted_step = None
        first = "diffuse" if set(changes) <= _NEUTRAL | {"seed", "steps"} else "prepare"
        for stage in STAGES[STAGES.index(first) :]:
            if run.states[stage] != "skipped":
                run.states[stage] = "pending"
        if first != "diffuse" or not set(changes) <= _NEUTRAL:
            run.checkpoints.clear()
        return self._snap(run)

    def branch(self, run_dir: Path, from_step: int, changes: Mapping[str, Any]) -> RunSnapshot:
        old = self._run(run_dir)
        new = self._run(self.create_run(dataclasses.replace(old.spec, **dict(changes))).dir)
        for stage in STAGES[: STAGES.index("diffuse")]:
            new.states[stage] = (
                "cached" if old.states[stage] in ("done", "cached") else old.states[stage]
            )
        if set(changes) <= _NEUTRAL and from_step > 0:
            new.checkpoints = {k for k in old.checkpoints if k <= from_step}
            new.last_completed_step = max(new.checkpoints, default=0)
        return self._snap(new)

    def unfinished_runs(self) -> list[RunSummary]:
        out = []
        for run in sorted(self._runs.values(), key=lambda r: r.id):
            snap = self._snap(run)
            if snap.resumable:
                out.append(RunSummary.of(snap))
        return out

    def list_runs(self) -> list[RunSnapshot]:
        runs = sorted(self._runs.values(), key=lambda r: (r.created, r.id), reverse=True)
        return [self._snap(run) for run in runs]

    def run_inputs(self, run_dir: Path) -> tuple[Path | None, Path | None]:
        spec = self._run(run_dir).spec  # the fake keeps no copies: the job's own files
        return (
            Path(spec.image) if spec.image else None,
            Path(spec.mask) if spec.mask else None,
        )

    def discard_run(self, run_dir: Path, trash: Callable[[Path], bool] | None = None) -> None:
        run = self._run(run_dir)
        if trash is None or not trash(run.dir):
            shutil.rmtree(run.dir, ignore_errors=True)
        del self._runs[run.dir]

    # --- execution ---
    def execute(
        self, run_dir: Path, control: RunControl, *, only: str | None = None
    ) -> EventStream:
        if only is not None and only not in STAGES:
            raise ValueError(f"unknown stage {only!r}")
        return self._execute(self._run(run_dir), control, only)

    def decode_step(self, run_dir: Path, step: int, control: RunControl) -> EventStream:
        run = self._run(run_dir)
        if step not in run.checkpoints:
            yield ev.RunFailed(
                "vae-decode",
                FailureKind.INPUT,
                f"There is no valid checkpoint for step {step}.",
                None,
            )
            return
        out = run.dir / "steps" / f"step_{step:03d}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(_PNG)
        yield ev.StageStarted("vae-decode", run.dir)
        yield ev.StageFinished("vae-decode", 0.0, False, "cpu")
        yield ev.RunFinished(out)

    def accept_step(self, run_dir: Path, step: int, control: RunControl) -> EventStream:
        run = self._run(run_dir)
        if step not in run.checkpoints:
            yield ev.RunFailed(
                "diffuse",
                FailureKind.INPUT,
                f"The run {run.dir} has no valid checkpoint for step {step}.",
                None,
            )
            return
        run.states["diffuse"] = "done"
        run.last_completed_step = step
        run.accepted_step = step
        run.failure = None
        for stage in ("vae-decode", "composite"):
            yield ev.StageStarted(stage, run.dir)
            run.states[stage] = "done"
            yield ev.StageFinished(stage, 0.0, False, "cpu")
        (run.dir / "result.png").write_bytes(_PNG)
        yield ev.RunFinished(run.dir / "result.png")

    def start_over(self, run_dir: Path) -> None:
        self._run(run_dir)  # the fake keeps no checkpoints of an older job: nothing to allow

    def _execute(  # noqa: C901 - one branch per injected fault
        self, run: _FakeRun, control: RunControl, only: str | None
    ) -> EventStream:
        run.failure = None
        if self.out_of_order:
            yield ev.StepProgressed(1, run.spec.steps, 0.0, 0.0)  # before any StageStarted
            yield ev.StageFinished("diffuse", 0.0, False, "cpu")  # never started
        for stage in STAGES:
            if only is not None and STAGES.index(stage) > STAGES.index(only):
                break
            if run.states[stage] == "skipped":
                continue
            if run.states[stage] in ("done", "cached"):
                if only is None or stage == only:
                    yield ev.StageStarted(stage, run.dir)
                    yield ev.StageFinished(stage, 0.0, True, "cpu")
                continue
            if only is not None and stage != only:
                yield self._fail(
                    run, stage, FailureKind.ORDER, f"Stage {stage} must run before {only}."
                )
                return
            if control.cancel_requested or control.suspend_requested:
                step = run.last_completed_step
                yield ev.RunCancelled(step) if control.cancel_requested else ev.RunSuspended(step)
                return
            yield ev.StageStarted(stage, run.dir)
            run.states[stage] = "running"
            if stage == self.fail_stage:
                yield self._fail(run, stage, self.fail_kind, f"fake failure in {stage}")
                return
            if stage == self.hang_stage:
                while not control.cancel_requested:  # never ends until cancelled
                    time.sleep(0.01)
                run.states[stage] = "pending"
                yield ev.RunCancelled(run.last_completed_step)
                return
            if stage == "diffuse":
                terminal = yield from self._diffuse(run, control)
                if terminal is not None:
                    yield terminal
                    return
            run.states[stage] = "done"
            if stage == "diffuse" and self.no_terminal:
                return  # the stream just stops: no StageFinished, no terminal event
            yield ev.StageFinished(stage, 0.0, False, "cpu")
        if only is not None and only != "composite":
            yield ev.RunFinished(run.dir)
            return
        (run.dir / "result.png").write_bytes(_PNG)
        yield ev.RunFinished(run.dir / "result.png")

    def _diffuse(self, run: _FakeRun, control: RunControl) -> Generator[Event, None, Event | None]:
        start = max(run.checkpoints, default=0)
        if start:
            yield ev.LogLine("diffuse", f"Resuming from the checkpoint after step {start}.")

        def checkpoint(step: int) -> None:
            run.checkpoints.add(step)
            run.last_completed_step = step

        terminal = yield from diffuse_steps(
            run.dir,
            control,
            steps=run.spec.steps,
            start_step=start,
            step_s=self.step_s,
            raise_at=self.raise_at_step,
            preview=self.preview if run.spec.preview != "none" else None,
            on_checkpoint=checkpoint,
        )
        if terminal is not None:
            run.states["diffuse"] = "pending"
        return terminal

    def _fail(self, run: _FakeRun, stage: str, kind: FailureKind, detail: str) -> ev.RunFailed:
        run.states[stage] = "failed"
        run.failure = Failure(kind, stage, detail, None)
        return ev.RunFailed(stage, kind, detail, None)

    # --- helpers ---
    def _run(self, run_dir: Path) -> _FakeRun:
        try:
            return self._runs[Path(run_dir)]
        except KeyError:
            from app.core.errors import DamagedFileError

            raise DamagedFileError(f"{run_dir} is not a run folder.", path=run_dir) from None

    def _snap(self, run: _FakeRun) -> RunSnapshot:
        finished = run.states["composite"] == "done"
        spec = run.spec
        size = (
            ModelInput(spec.width, spec.height, None)
            if run.states["prepare"] in ("done", "cached")
            else None
        )
        return RunSnapshot(
            dir=run.dir,
            id=run.id,
            created=run.created,
            spec=spec,
            stages=tuple(
                StageSnapshot(s, run.states[s], run.states[s] == "cached", None, None)
                for s in STAGES
            ),
            steps=spec.steps,
            last_completed_step=run.last_completed_step,
            checkpoints=tuple(sorted(run.checkpoints)),
            result=run.dir / "result.png" if finished else None,
            model_input=size,
            failure=run.failure,
            photo_name=run.photo_name,
            accepted_step=run.accepted_step,
        )
