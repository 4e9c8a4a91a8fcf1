"""The stage graph: prepare → vae-encode → llm-encode → diffuse → vae-decode → composite.

`Pipeline` implements app.pipeline.api.PipelineAPI. `execute()` is a plain generator of
app.pipeline.events; the jobs layer iterates it in a worker thread, the CLI in its main thread.
The work lies on the floors below: execute/ (scheduler, stages, one sd-stage process per
stage), cache/ (keys, store) and run/ (the run folder: run.json, inputs, checkpoints). Runs
cross the seam as folders (a Path) and frozen RunSnapshots.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from app.core.errors import DamagedFileError, InputError, OutputError, StepwiseError
from app.core.paths import AppPaths
from app.core.settings import load_settings
from app.engine.catalog import list_catalog
from app.engine.devices import RecentDevices
from app.engine.locate import find_sd_stage
from app.engine.process import engine_environment
from app.engine.stage import Stage
from app.engine.tensorfile import file_sha256
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
from app.pipeline.cache.key_sources import (
    KNOWN_BUILDS_FILE,
    engine_key_version,
    job_keys,
    run_keys,
)
from app.pipeline.cache.store import StageCache
from app.pipeline.control import RunControl
from app.pipeline.execute import accept, decode, scheduler
from app.pipeline.execute.failure_kinds import failure_for
from app.pipeline.execute.fit_guard import plan_for_files
from app.pipeline.execute.preview_decoder import decoder_for
from app.pipeline.job import preflight, presets
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import JobPlan
from app.pipeline.run import checkpoints
from app.pipeline.run.folder import (
    ENGINE_STAGES,
    PREVIEWS_DIR,
    RUN_FILE,
    STAGES,
    Run,
    StageState,
    check_new_folder,
    create_run,
    new_run_id,
    open_run,
)
from app.pipeline.run.inputs import (
    check_new_job,
    check_spec_inputs,
    copy_inputs,
    copy_inputs_from,
    verify_inputs,
)
from app.pipeline.run.lock import RunLock

log = logging.getLogger(__name__)

__all__ = ["STAGES", "ENGINE_STAGES", "Pipeline", "Run", "RunSummary", "StageState", "snapshot_of"]

BYTES_PER_MB = 1024 * 1024
DEVICE_FACTS = ("total_bytes", "free_bytes", "max_alloc_bytes", "fp16")
INPUT_FIELDS = frozenset({"image", "mask", "refs"})
SEED_RANGE = 2**31 - 1


def _with_seed(spec: JobSpec) -> JobSpec:
    """A seed of -1 is drawn once here and recorded, so a resume samples the same noise."""
    if spec.seed >= 0:
        return spec
    return dataclasses.replace(spec, seed=secrets.randbelow(SEED_RANGE))


def snapshot_of(run: Run) -> RunSnapshot:
    """The frozen view of a run for the UI and the CLI."""
    mi = run.model_input
    stages = tuple(
        StageSnapshot(s.name, s.state, s.cached, s.seconds, s.device) for s in run.stages()
    )
    return RunSnapshot(
        dir=run.dir,
        id=run.id,
        created=run.created,
        spec=run.spec,
        stages=stages,
        steps=run.steps,
        last_completed_step=run.last_completed_step,
        checkpoints=tuple(sorted(checkpoints.valid_checkpoints(run.dir))),
        result=run.result if run.finished else None,
        model_input=None if mi is None else ModelInput(mi.width, mi.height, mi.region),
        failure=run.failure,
        accepted_step=run.accepted_step,
        photo_name=run.inputs.image.name or None if run.inputs.image is not None else None,
        color_match=run.stage(Stage.COMPOSITE).color_match,
    )


class Pipeline:
    """Creates, opens and executes runs; holds the engine path and the stage cache."""

    def __init__(
        self, paths: AppPaths, engine: Path | None = None, cache_limit_mb: int | None = None
    ) -> None:
        self.paths = paths
        self._engine_path = Path(engine) if engine is not None else None
        if cache_limit_mb is None:
            cache_limit_mb = load_settings(paths.settings_file).cache_limit_mb
        self.cache = StageCache(paths.stage_cache_dir, cache_limit_mb * BYTES_PER_MB)
        self._engine_versions: dict[tuple[str, int, int], str] = {}
        self._catalogs: dict[tuple[str, int, int], EngineCatalog] = {}
        self._devices = RecentDevices()

    # ------------------------------------------------------------------ the engine
    def devices(self) -> list[DeviceInfo]:
        """The devices the engine can use: "cpu", "vulkan0", ... (lower-case names)."""
        found = self._devices.get(self.engine_binary(), engine_environment())
        return [
            DeviceInfo(
                d.name.lower(),
                d.description,
                # the memory facts, once the engine's listing reports them (None before)
                **{f: getattr(d, f, None) for f in DEVICE_FACTS},
            )
            for d in found
        ]

    def catalog(self) -> EngineCatalog:
        """Samplers (with resumability) and schedulers from `sd-stage --list-samplers`."""
        engine = self.engine_binary()
        memo = _file_memo(engine)
        if memo not in self._catalogs:
            found = list_catalog(engine, engine_environment())
            self._catalogs[memo] = EngineCatalog(
                tuple(SamplerInfo(s.name, s.resumable) for s in found.samplers), found.schedulers
            )
        return self._catalogs[memo]

    def device_names_if_any(self) -> list[str] | None:
        """The names of the devices the engine lists, or None without an engine."""
        try:
            return [d.name for d in self.devices()]
        except StepwiseError:
            return None

    def catalog_if_any(self) -> EngineCatalog | None:
        """The catalog, or None without an engine (the run then reports the engine missing)."""
        try:
            return self.catalog()
        except StepwiseError:
            return None

    def engine_binary(self) -> Path:
        return find_sd_stage(self._engine_path)

    def plan(
        self,
        spec: JobSpec,
        size: tuple[int, int] | None = None,
        devices: Sequence[DeviceInfo] | None = None,
        *,
        search: bool = True,
    ) -> JobPlan:
        found = self.devices() if devices is None else devices
        return plan_for_files(self.engine_binary(), spec, found, size=size, search=search)

    def preview_decoder(
        self, run_dir: Path, on_decoded: Callable[[DecodedPreview], None]
    ) -> BackgroundDecoder | None:
        spec = open_run(Path(run_dir)).spec
        out = Path(run_dir) / PREVIEWS_DIR
        return decoder_for(self.engine_binary, spec, out, on_decoded)

    def engine_version(self, engine: Path) -> str:
        """What the engine computes with: native/build.py's input hash (source, patches, our
        native code, options) when the binary has its build stamp, so a rebuild of the same
        inputs keeps every key; a stamp-less copy of a build seen here keeps that build's keys;
        else the binary's sha256 (an engine built elsewhere)."""
        memo = _file_memo(engine)
        if memo not in self._engine_versions:
            known = self.paths.data_dir / KNOWN_BUILDS_FILE
            version = engine_key_version(engine, lambda: file_sha256(engine), known)
            self._engine_versions[memo] = version
        return self._engine_versions[memo]

    def _binary_version(self, engine: Path) -> str:
        return "sha256:" + file_sha256(engine)

    def stage_keys(self, run: Run, engine: Path) -> dict[str, str | None]:
        return run_keys(run, self.engine_version(engine), lambda: self._binary_version(engine))

    # ------------------------------------------------------------------ runs
    def create_run(
        self, spec: JobSpec, run_dir: Path | None = None, *, photo_name: str | None = None
    ) -> RunSnapshot:
        """A new run folder under paths.runs_dir (or `run_dir`) holding copies of the inputs;
        `photo_name`: the name the user knows the picture by (inputs.copy_inputs)."""
        # An outpaint with no prompt of its own runs with klein's fixed instruction (presets.py).
        expand = spec.prepare.expand if spec.prepare is not None else ""
        prompt = presets.outpaint_prompt(spec.prompt, expand)
        if prompt != spec.prompt:
            spec = dataclasses.replace(spec, prompt=prompt)
        # before the seed is drawn; the devices too, when there is an engine to ask
        check_new_job(spec, self.catalog_if_any(), self.device_names_if_any())
        spec = _with_seed(spec)
        preflight.check_run_folder(run_dir if run_dir is not None else self.paths.runs_dir, spec)
        folder = Path(run_dir) if run_dir is not None else self.paths.runs_dir / new_run_id()
        check_new_folder(folder)  # a folder of the user's own files: refused, left untouched
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(
                "The run folder {path} cannot be made: {reason}.",
                path=folder,
                fix="Choose a writable run folder (--run-dir).",
                values={"reason": exc.strerror or exc},
            ) from exc
        # The lock first, then run.json: a second run into the same folder is refused (RunBusy
        # or "already holds a run") and never mixes its files with this one's.
        with RunLock(folder):
            run = create_run(self.paths.runs_dir, spec, folder)
            copy_inputs(run, spec, photo_name)
            run.save()
        return snapshot_of(run)

    def snapshot(self, run_dir: Path) -> RunSnapshot:
        return snapshot_of(open_run(Path(run_dir)))

    def open_run(self, run_dir: Path) -> Run:
        """The live run (internal: the CLI's helpers; callers above use snapshot())."""
        return open_run(Path(run_dir))

    def update_run(
        self, run_dir: Path, changes: Mapping[str, Any], *, photo_name: str | None = None
    ) -> RunSnapshot:
        """Changes the job of an existing run; only the stages the change affects run again."""
        run = open_run(Path(run_dir))
        changed = dataclasses.replace(run.spec, **dict(changes))
        preflight.check_job(changed, self.catalog_if_any(), self.device_names_if_any())
        spec = _with_seed(changed)
        before = job_keys(run)
        if INPUT_FIELDS & set(changes):
            check_spec_inputs(spec)
            preflight.check_frame_fits(spec)
            copy_inputs(run, spec, photo_name)
        elif spec.prepare != run.spec.prepare and run.inputs.image is not None:
            preflight.check_frame_fits(spec, run.dir / run.inputs.image.file)
        run.spec_changed(spec)
        if job_keys(run)[Stage.DIFFUSE] != before[Stage.DIFFUSE]:
            # The user changed what diffuse makes: its old checkpoints may go (no question).
            run.stage(Stage.DIFFUSE).checkpoint_key = None
        run.set_result(None)
        run.save()
        return snapshot_of(run)

    def accept_step(self, run_dir: Path, step: int, control: RunControl) -> ev.EventStream:
        """Finishes the run from step `step` (execute/accept.py)."""
        return accept.accept_step(self, Path(run_dir), step, control)

    def start_over(self, run_dir: Path) -> None:
        """The user chose to start diffuse over: checkpoints that no longer fit the run's key
        (checkpoints.CheckpointsKept) may be deleted by the next execute()."""
        folder = Path(run_dir)
        with RunLock(folder):
            checkpoints.allow_start_over(open_run(folder))

    def _runs(self) -> Iterator[RunSnapshot]:
        """Every run of the runs folder that opens, by folder name; damaged ones are left out."""
        root = self.paths.runs_dir
        for folder in sorted(root.iterdir()) if root.is_dir() else []:
            if (folder / RUN_FILE).is_file():
                try:
                    yield snapshot_of(open_run(folder))
                except (DamagedFileError, OSError):
                    continue

    def unfinished_runs(self) -> list[RunSummary]:
        """Runs with something to resume and no result, oldest first."""
        return [RunSummary.of(snap) for snap in self._runs() if snap.resumable]

    def list_runs(self) -> list[RunSnapshot]:
        """Every run that opens, newest first; damaged ones are left out."""
        return sorted(self._runs(), key=lambda s: (s.created, s.id), reverse=True)

    def run_inputs(self, run_dir: Path) -> tuple[Path | None, Path | None]:
        """The run's verified copies of its image and mask (None where the job has none)."""
        run = open_run(Path(run_dir))
        verify_inputs(run)
        image, mask = run.inputs.image, run.inputs.mask
        return (
            run.dir / image.file if image is not None else None,
            run.dir / mask.file if mask is not None else None,
        )

    def discard_run(self, run_dir: Path, trash: Callable[[Path], bool] | None = None) -> None:
        """Moves a run folder to the trash (`trash(folder)` True) or deletes it."""
        folder = Path(run_dir).resolve()
        root = self.paths.runs_dir.resolve()
        if folder.parent != root or not (folder / RUN_FILE).is_file():
            raise InputError(
                "{path} is not a run in the runs folder {root}.",
                path=folder,
                values={"root": root},
            )
        with RunLock(folder):  # RunBusy while another process executes it
            pass
        if trash is not None and trash(folder):
            return
        try:
            shutil.rmtree(folder)
        except OSError as exc:
            raise OutputError(
                "The run folder {path} could not be deleted: {reason}.",
                path=folder,
                values={"reason": exc.strerror or exc},
                fix="Close programs that use files in it, then try again.",
            ) from exc

    def branch(self, run_dir: Path, from_step: int, changes: Mapping[str, Any]) -> RunSnapshot:
        """A new run with `changes` that shares this run's outputs still valid for it.

        Checkpoints 1..from_step are shared only when the change leaves the diffusion's inputs
        equal (the engine refuses a resume whose inputs differ); otherwise diffuse starts over.
        """
        run = open_run(Path(run_dir))
        changed = dataclasses.replace(run.spec, **dict(changes))
        preflight.check_job(changed, self.catalog_if_any(), self.device_names_if_any())
        spec = _with_seed(changed)
        if INPUT_FIELDS & set(changes):
            check_spec_inputs(spec)
        new = create_run(self.paths.runs_dir, spec)
        if INPUT_FIELDS & set(changes):
            copy_inputs(new, spec)
        else:
            copy_inputs_from(run, new)
        engine = self.engine_binary()
        old_keys = self.stage_keys(run, engine)
        new_keys = self.stage_keys(new, engine)
        for stage in STAGES[: STAGES.index(Stage.DIFFUSE)]:  # diffuse goes on from `from_step`
            if old_keys[stage] != new_keys[stage] or not scheduler.up_to_date(
                run, stage, old_keys[stage]
            ):
                continue
            for out in run.stage(stage).outputs.values():
                _copy(run.dir / out.file, new.dir / out.file)
            new.stage(stage).copy_from(run.stage(stage))
            if stage == Stage.PREPARE:
                new.model_input = run.model_input
        if old_keys[Stage.DIFFUSE] == new_keys[Stage.DIFFUSE] and from_step > 0:
            checkpoints.share(run, new, from_step, str(new_keys[Stage.DIFFUSE]))
        new.save()
        return snapshot_of(new)

    # ------------------------------------------------------------------ execution
    def execute(
        self, run_dir: Path, control: RunControl, *, only: str | None = None
    ) -> ev.EventStream:
        """Runs every stage that is not up to date (or just `only`); one terminal event last."""
        if only is not None and only not in STAGES:
            raise ValueError(f"unknown stage {only!r}")
        return self._execute(Path(run_dir), control, only)

    def _execute(self, run_dir: Path, control: RunControl, only: str | None) -> ev.EventStream:
        try:
            run = open_run(run_dir)
        except DamagedFileError as exc:
            failure = failure_for(exc, Stage.PREPARE)
            yield ev.RunFailed.of(failure)
            return
        yield from scheduler.execute(self, run, control, only)

    def decode_step(self, run_dir: Path, step: int, control: RunControl) -> ev.EventStream:
        """Decodes the checkpoint after `step` to steps/step_NNN.png (execute/decode.py)."""
        return decode.decode_step(Path(run_dir), step, control, self.engine_binary)


def _file_memo(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path), st.st_size, st.st_mtime_ns)


def _copy(src: Path, dest: Path) -> None:
    from app.pipeline.run.inputs import copy_atomic

    copy_atomic(src, dest)
