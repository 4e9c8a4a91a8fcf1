"""The typed seam between the pipeline and everything above it (jobs, ui, cli).

`PipelineAPI` is implemented by app.pipeline.runner.Pipeline and by the test fake
(tests/fakes/fake_pipeline.py); tests/pipeline/test_contract.py runs the same scenarios
against both. Runs cross this seam as frozen `RunSnapshot`s and are named by their folder:
no caller ever holds the live object a worker mutates.

Above the pipeline (jobs, ui, cli) a caller imports only what app/pipeline/__init__.py hands
out, the seam modules (api, plans, events, failures, control), the job/ floor and selftest, demo,
engine_info (the "pipeline surface" import contract). Each event stream ends in exactly one
terminal event (events.py TERMINAL_EVENTS); an up-to-date stage yields StageStarted and
StageFinished(cached=True), a skipped one nothing. A change reruns exactly the stages after
the one it invalidates (cache/keys.py; the parameter table's `invalidates`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from app.engine.stage import Stage
from app.pipeline.control import RunControl
from app.pipeline.events import EventStream
from app.pipeline.failures import Failure
from app.pipeline.job.catalog import DeviceInfo as DeviceInfo
from app.pipeline.job.catalog import EngineCatalog as EngineCatalog
from app.pipeline.job.catalog import SamplerInfo as SamplerInfo
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import JobPlan


@dataclass(frozen=True)
class ModelInput:
    """What the engine is given: its size, and the part of the original photo it covers
    (x, y, w, h in the photo's pixels, of the expanded picture when outpainting; with
    only-masked the mask's box plus padding joined with the context area; None = the whole
    photo or text-to-image)."""

    width: int
    height: int
    region: tuple[int, int, int, int] | None


@dataclass(frozen=True)
class StageSnapshot:
    """One stage of a run as it is on disk."""

    name: str
    state: str  # pending | running | done | cached | failed | skipped
    cached: bool
    seconds: float | None
    device: str | None


@dataclass(frozen=True)
class RunSnapshot:
    """A run as it was when read: everything the UI shows, nothing it can mutate."""

    dir: Path
    id: str
    created: str
    spec: JobSpec
    stages: tuple[StageSnapshot, ...]
    steps: int | None  # steps diffuse really runs (after strength), once known
    last_completed_step: int
    checkpoints: tuple[int, ...]  # steps with a valid checkpoint
    result: Path | None  # the composited result, when finished
    model_input: ModelInput | None  # once prepare ran
    failure: Failure | None  # the last failure, if the run stopped with one
    accepted_step: int | None = None  # finished early from this step (execute/accept.py)
    # The file name the user knows the picture by (the GUI's copy is named image.png): None in
    # runs made before it was recorded, and where the job named none (app/pipeline/run/inputs.py).
    photo_name: str | None = None
    # What colour match did at the composite (app/imaging/drift.Drift.as_record; run.json's
    # composite stage), None: off, not composited yet, or a run made before issue 40.
    color_match: dict[str, Any] | None = None

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def resumable(self) -> bool:
        """Something to resume: a finished engine stage or a checkpoint, and no result."""
        if self.finished:
            return False
        engine_done = any(
            s.state in ("done", "cached") and s.name != Stage.PREPARE for s in self.stages
        )
        return engine_done or bool(self.checkpoints)

    def stage(self, name: str) -> StageSnapshot:
        for s in self.stages:
            if s.name == name:
                return s
        raise KeyError(name)


@dataclass(frozen=True)
class RunSummary:
    """A run with something to resume, for the unfinished-runs offer."""

    dir: Path
    id: str
    created: str
    prompt: str
    last_completed_step: int
    steps: int | None

    @classmethod
    def of(cls, snap: RunSnapshot) -> RunSummary:
        return cls(
            snap.dir, snap.id, snap.created, snap.spec.prompt, snap.last_completed_step, snap.steps
        )


@dataclass(frozen=True)
class DecodedPreview:
    """The x0 prediction of `step`, decoded to `png`; `seconds`: the decode's wall time."""

    step: int
    png: Path
    seconds: float


class BackgroundDecoder(Protocol):
    """One run's decoder of the x0 latents diffuse writes (PipelineAPI.preview_decoder):
    start(), then offer() each latent or watch() the checkpoint folder, stop() at the end
    (nothing is delivered after it, no child or partial file stays)."""

    def start(self) -> None: ...

    def offer(self, step: int, latent: Path | str) -> None: ...

    def watch(self, folder: Path | str) -> None: ...

    @property
    def running(self) -> bool: ...

    def stop(self, timeout_s: float = ...) -> None: ...


@runtime_checkable
class PipelineAPI(Protocol):
    """What jobs/, ui/ (through jobs/) and cli/ may ask of the pipeline."""

    def engine_binary(self) -> Path:
        """The sd-stage this pipeline runs, located now: the one engine locator above the
        pipeline (EngineNotFound, a StepwiseError, when there is none)."""
        ...

    def devices(self) -> list[DeviceInfo]:
        """The devices the engine lists (cpu first). Raises StepwiseError without an engine."""
        ...

    def catalog(self) -> EngineCatalog:
        """Samplers (with resumability) and schedulers, from the engine."""
        ...

    def plan(
        self,
        spec: JobSpec,
        size: tuple[int, int] | None = None,
        devices: Sequence[DeviceInfo] | None = None,
        *,
        search: bool = True,
    ) -> JobPlan:
        """The job's memory plan (plans.py): every stage fitted at `size` (None: the size the
        model gets from the job's picture and prepare options, else its width × height) on
        `devices` (None: the engine's list); `search`: also the largest size that fits
        without slow settings. Raises StepwiseError when no plan can be made."""
        ...

    def preview_decoder(
        self, run_dir: Path, on_decoded: Callable[[DecodedPreview], None]
    ) -> BackgroundDecoder | None:
        """A background decoder of the run's step previews (on the CPU, below normal
        priority), not started; None when the run's job wants none (the `decoded_previews`
        row). `on_decoded` runs on the decoder's thread."""
        ...

    def create_run(
        self, spec: JobSpec, run_dir: Path | None = None, *, photo_name: str | None = None
    ) -> RunSnapshot:
        """A new run folder holding verified copies of the inputs; `photo_name` is recorded as
        the picture's name (its file name only), None records none."""
        ...

    def snapshot(self, run_dir: Path) -> RunSnapshot:
        """The run in `run_dir` as it is on disk now (DamagedFileError if it cannot be read)."""
        ...

    def update_run(
        self, run_dir: Path, changes: Mapping[str, Any], *, photo_name: str | None = None
    ) -> RunSnapshot:
        """The job changed (JobSpec field → value); only the stages it affects run again. A new
        image is recorded with `photo_name` as create_run records it."""
        ...

    def branch(self, run_dir: Path, from_step: int, changes: Mapping[str, Any]) -> RunSnapshot:
        """A new run sharing steps 1..from_step (when the change keeps diffuse's inputs)."""
        ...

    def unfinished_runs(self) -> list[RunSummary]:
        """Runs with something to resume (a finished engine stage or a checkpoint), oldest
        first; runs that failed before doing anything are not offered."""
        ...

    def list_runs(self) -> list[RunSnapshot]:
        """Every run that opens, newest first (the Runs panel); damaged ones are left out."""
        ...

    def run_inputs(self, run_dir: Path) -> tuple[Path | None, Path | None]:
        """The run's verified copies of its image and mask (None where the job has none);
        DamagedFileError when a copy changed since the run began."""
        ...

    def discard_run(self, run_dir: Path, trash: Callable[[Path], bool] | None = None) -> None:
        """Removes a run folder: `trash(folder)` moves it to the OS trash (True when it did),
        else it is deleted. RunBusy while another process executes it; InputError when the
        folder is not a run of this pipeline's runs folder."""
        ...

    def execute(
        self, run_dir: Path, control: RunControl, *, only: str | None = None
    ) -> EventStream:
        """Runs every stage not up to date (or just `only`); exactly one terminal event."""
        ...

    def decode_step(self, run_dir: Path, step: int, control: RunControl) -> EventStream:
        """Decodes the checkpoint after `step`; RunFinished(result_path=the PNG)."""
        ...

    def accept_step(self, run_dir: Path, step: int, control: RunControl) -> EventStream:
        """Finishes the run from step `step` without its later steps: vae-decode and composite
        run on that step's latent and the snapshot's accepted_step is `step`; exactly one
        terminal event (RunFailed, kind input, when `step` has no valid checkpoint)."""
        ...

    def start_over(self, run_dir: Path) -> None:
        """The user chose to start diffuse over: checkpoints that no longer fit the run's job
        may be deleted by the next execute()."""
        ...
