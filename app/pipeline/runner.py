"""The stage graph: prepare → vae-encode → llm-encode → diffuse → vae-decode → composite.

`Pipeline.execute()` is a plain generator of app.pipeline.events; the jobs layer iterates it in
a worker thread, the CLI in its main thread. Each engine stage is one sd-stage process
(app.engine.process.StageProcess); every finished stage's outputs are in the run directory
with their sha256 in run.json. A stage is skipped when its key (keys.stage_keys) matches the
one recorded and its outputs verify; conditionings and latents also come from the shared
content-addressed cache. Exactly one terminal event ends every execute().
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.errors import DamagedFileError, InputError, StepwiseError
from app.core.paths import AppPaths
from app.core.settings import load_settings
from app.engine import events as engine_events
from app.engine.argv import (
    CommonArgs,
    DiffuseArgs,
    LlmEncodeArgs,
    Placement,
    StageArgs,
    VaeDecodeArgs,
    VaeEncodeArgs,
    build_argv,
)
from app.engine.devices import list_devices
from app.engine.errors import BadInputError, Cancelled, EngineError, EngineStopped, Suspended
from app.engine.events import path_inside
from app.engine.locate import find_sd_stage
from app.engine.process import StageProcess, engine_environment
from app.engine.tensorfile import file_sha256, read_tensors, write_tensors
from app.pipeline import events as ev
from app.pipeline.cache import StageCache
from app.pipeline.control import RunControl
from app.pipeline.identity import model_identity
from app.pipeline.keys import lora_identities, prompt_loras, stage_keys
from app.pipeline.run_dir import ENGINE_STAGES, STAGES, Run, StageState, create_run, open_run
from app.pipeline.run_lock import RunBusy, RunLock, stop_orphan_engine
from app.pipeline.spec import JobSpec, effective_steps

log = logging.getLogger(__name__)

__all__ = ["STAGES", "ENGINE_STAGES", "Pipeline", "Run", "RunSummary", "StageState"]

RESULT_FILE = "result.png"
INIT_LATENT = "init_latent.bin"
REF_LATENTS = "ref_latents.bin"
CONDITIONING = "conditioning.bin"
FINAL_LATENT = "final_latent.bin"
DECODED = "decoded.png"
CHECKPOINT_DIR = "checkpoints"
PREPARED_DIR = "prepared"
INPUTS_DIR = "inputs"
LOG_DIR = "logs"
ENGINE_EXIT_WAIT_S = 120.0
MAX_METADATA_BYTES = 1024 * 1024
BYTES_PER_MB = 1024 * 1024
_STAGE_MODEL = {"vae-encode": "vae", "llm-encode": "llm", "diffuse": "diffusion",
                "vae-decode": "vae"}


@dataclass(frozen=True)
class RunSummary:
    """An unfinished run, for "Resume run … at step k of N"."""

    dir: Path
    id: str
    created: str
    prompt: str
    last_completed_step: int
    steps: int | None


class _StageFailed(Exception):
    def __init__(self, stage: str, error: StepwiseError, log_path: Path | None) -> None:
        super().__init__(error.user_message())
        self.stage, self.error, self.log_path = stage, error, log_path


class Pipeline:
    """Creates, opens and executes runs; holds the engine path and the stage cache."""

    def __init__(self, paths: AppPaths, engine: Path | None = None,
                 cache_limit_mb: int | None = None) -> None:
        self.paths = paths
        self._engine_path = Path(engine) if engine is not None else None
        if cache_limit_mb is None:
            cache_limit_mb = load_settings(paths.settings_file).cache_limit_mb
        self.cache = StageCache(paths.stage_cache_dir, cache_limit_mb * BYTES_PER_MB)
        self._engine_versions: dict[tuple[str, int, int], str] = {}

    # ------------------------------------------------------------------ runs
    def create_run(self, spec: JobSpec, run_dir: Path | None = None) -> Run:
        """A new run directory under paths.runs_dir (or `run_dir`) holding copies of the inputs."""
        for label, path in (("image", spec.image), ("mask", spec.mask)):
            if path is not None and not Path(path).is_file():
                raise InputError(f"The {label} {path} does not exist.", path=path)
        for ref in spec.refs:
            if not Path(ref).is_file():
                raise InputError(f"The reference image {ref} does not exist.", path=ref)
        if spec.mask is not None and spec.image is None:
            raise InputError("A mask needs an image to inpaint.")
        run = create_run(self.paths.runs_dir, spec, run_dir)
        self._copy_inputs(run, spec)
        run.save()
        return run

    def open_run(self, run_dir: Path) -> Run:
        return open_run(Path(run_dir))

    def update_run(self, run: Run, **changes: Any) -> Run:
        """Changes the job of an existing run; only the stages the change affects run again."""
        spec = dataclasses.replace(run.spec, **changes)
        if {"image", "mask", "refs"} & set(changes):
            self._copy_inputs(run, spec)
        run.spec_changed(spec)
        run.data["result"] = None
        run.save()
        return run

    def devices(self) -> list[tuple[str, str]]:
        """(name, description) of each device the engine can use: "cpu", "vulkan0", ..."""
        found = list_devices(self._engine(), engine_environment())
        return [(d.name.lower(), d.description) for d in found]

    def unfinished_runs(self) -> list[RunSummary]:
        out = []
        root = self.paths.runs_dir
        if not root.is_dir():
            return out
        for folder in sorted(root.iterdir()):
            if not (folder / "run.json").is_file():
                continue
            try:
                run = open_run(folder)
            except DamagedFileError:
                continue
            if not run.finished:
                out.append(RunSummary(run.dir, run.id, str(run.data.get("created", "")),
                                      run.spec.prompt, run.last_completed_step, run.steps))
        return out

    def branch(self, run: Run, from_step: int, **changes: Any) -> Run:
        """A new run with `changes` that shares this run's outputs still valid for it.

        Checkpoints 0..from_step are shared only when the change leaves the diffusion's inputs
        equal (the engine refuses a resume whose inputs differ); otherwise diffuse starts over.
        """
        spec = dataclasses.replace(run.spec, **changes)
        new = create_run(self.paths.runs_dir, spec)
        shutil.copytree(run.dir / INPUTS_DIR, new.dir / INPUTS_DIR, dirs_exist_ok=True)
        if not {"image", "mask", "refs"} & set(changes):
            new.data["inputs"] = json.loads(json.dumps(run.data["inputs"]))
        else:
            self._copy_inputs(new, spec)
        engine = self._engine()
        old_keys = self._keys(run, engine)
        new_keys = self._keys(new, engine)
        for stage in STAGES:
            if old_keys[stage] != new_keys[stage] or not self._up_to_date(run, stage,
                                                                          old_keys[stage]):
                continue
            rec = json.loads(json.dumps(run.stage(stage)))
            for out in rec["outputs"].values():
                target = new.dir / out["file"]
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(run.dir / out["file"], target)
            new.data["stages"][stage] = rec
        if old_keys["diffuse"] == new_keys["diffuse"] and from_step > 0:
            self._share_checkpoints(run, new, from_step, new_keys["diffuse"])
        new.save()
        return new

    # ------------------------------------------------------------------ execution
    def execute(self, run: Run, control: RunControl, *, only: str | None = None
                ) -> Iterator[ev.Event]:
        """Runs every stage that is not up to date (or just `only`); one terminal event last."""
        if only is not None and only not in STAGES:
            raise ValueError(f"unknown stage {only!r}")
        stage = "prepare"
        lock = RunLock(run.dir)
        try:
            lock.__enter__()
        except RunBusy as exc:
            yield ev.RunFailed(stage, exc.user_message(), None)
            return
        try:
            yield from self._execute_locked(run, control, only)
        finally:
            lock.__exit__(None, None, None)

    def _execute_locked(self, run: Run, control: RunControl, only: str | None
                        ) -> Iterator[ev.Event]:
        stage = "prepare"
        try:
            if stop_orphan_engine(run.data.get("engine_pid"), run.dir):
                yield ev.LogLine("diffuse", "Stopped an engine left running by a crashed "
                                            "Stepwise process.")
            engine = self._engine()
            keys = self._keys(run, engine)
            run.data["engine"] = {"path": str(engine), "version": self._engine_version(engine)}
            run.data["result"] = None if not run.finished else run.data["result"]
            run.save()
            for stage in STAGES:
                if only is not None and STAGES.index(stage) > STAGES.index(only):
                    break
                key = keys[stage]
                if key is None:
                    self._mark(run, stage, "skipped", key=None, seconds=None, cached=False)
                    continue
                if self._up_to_date(run, stage, key):
                    rec = run.stage(stage)
                    if stage == only or only is None:
                        yield ev.StageStarted(stage, run.dir)
                        yield ev.StageFinished(stage, 0.0, True, rec.get("device") or "")
                    continue
                if only is not None and stage != only:
                    raise _StageFailed(stage, StepwiseError(
                        f"Stage {stage} must run before {only}."), None)
                if control.paused and not (control.cancel_requested
                                           or control.suspend_requested):
                    # Paused between stages: hold here, no engine (and no model) loaded.
                    yield ev.Paused(run.last_completed_step)
                    control.wait_while_paused()
                    if not (control.cancel_requested or control.suspend_requested):
                        yield ev.Resumed(run.last_completed_step)
                terminal = self._check_control(run, control)
                if terminal is not None:
                    yield terminal
                    return
                yield ev.StageStarted(stage, run.dir)
                started = time.monotonic()
                self._mark(run, stage, "running", key=None, seconds=None, cached=False)
                cached = yield from self._run_stage(stage, run, control, engine, key)
                seconds = time.monotonic() - started
                self._mark(run, stage, "cached" if cached else "done", key=key,
                           seconds=round(seconds, 3), cached=cached)
                yield ev.StageFinished(stage, seconds, cached, run.stage(stage).get("device") or "")
            if only is not None and only != "composite":
                outputs = list(run.stage(only)["outputs"].values())
                yield ev.RunFinished(run.dir / outputs[0]["file"] if outputs else run.dir)
                return
            run.data["result"] = RESULT_FILE
            run.save()
            yield ev.RunFinished(run.dir / RESULT_FILE)
        except Suspended as exc:
            self._stopped(run, stage)
            yield ev.RunSuspended(self._step_after_stop(run, exc))
        except Cancelled as exc:
            self._stopped(run, stage)
            yield ev.RunCancelled(self._step_after_stop(run, exc))
        except _StageFailed as exc:
            self._failed(run, exc.stage, exc.error.user_message())
            yield ev.RunFailed(exc.stage, exc.error.user_message(), exc.log_path)
        except EngineError as exc:
            log_path = run.dir / LOG_DIR / f"{stage}.log"
            self._failed(run, stage, exc.user_message())
            yield ev.RunFailed(stage, exc.user_message(),
                               log_path if log_path.exists() else None)
        except StepwiseError as exc:
            self._failed(run, stage, exc.user_message())
            yield ev.RunFailed(stage, exc.user_message(), None)
        except Exception as exc:  # a bug: still exactly one terminal event, with the trace logged
            log.exception("stage %s of run %s failed", stage, run.dir)
            message = f"Unexpected error in stage {stage}: {type(exc).__name__}: {exc}"
            try:
                self._failed(run, stage, message)
            except Exception:  # noqa: BLE001 - already failing; the event matters more
                log.exception("could not record the failure")
            yield ev.RunFailed(stage, message, None)

    def decode_step(self, run: Run, step: int, control: RunControl) -> Iterator[ev.Event]:
        """Decodes the checkpoint after `step` to steps/step_NNN.png ("Decode this step")."""
        stage = "vae-decode"
        try:
            engine = self._engine()
            checkpoint = self._valid_checkpoints(run).get(step)
            if checkpoint is None:
                raise StepwiseError(f"There is no valid checkpoint for step {step}.")
            out = run.dir / "steps" / f"step_{step:03d}.png"
            out.parent.mkdir(parents=True, exist_ok=True)
            # Checkpoints hold x_t under the name "x_t"; vae-decode reads "latent".
            tensors = read_tensors(checkpoint)
            if "x_t" not in tensors:
                raise StepwiseError(f"The checkpoint {checkpoint} holds no x_t tensor.")
            latent = out.with_suffix(".latent.bin")
            write_tensors(latent, {"latent": tensors["x_t"]})
            yield ev.StageStarted(stage, run.dir)
            started = time.monotonic()
            args = VaeDecodeArgs(vae=Path(run.spec.models.vae), load_latent=latent,
                                 output=out, common=self._common(run.spec, "vae"))
            yield from self._engine_stage(run, control, engine, args, f"decode-step-{step}",
                                          record=False)
            yield ev.StageFinished(stage, time.monotonic() - started, False)
            yield ev.RunFinished(out)
        except Suspended as exc:
            yield ev.RunSuspended(exc.step or 0)
        except Cancelled as exc:
            yield ev.RunCancelled(exc.step or 0)
        except EngineError as exc:
            yield ev.RunFailed(stage, exc.user_message(),
                               run.dir / LOG_DIR / f"decode-step-{step}.log")
        except StepwiseError as exc:
            yield ev.RunFailed(stage, exc.user_message(), None)

    # ------------------------------------------------------------------ stages
    def _run_stage(self, stage: str, run: Run, control: RunControl, engine: Path, key: str
                   ) -> Generator[ev.Event, None, bool]:
        """Runs one stage; returns True if its output came from the cache."""
        if stage == "prepare":
            self._prepare(run)
            return False
        if stage == "composite":
            self._composite(run)
            return False
        if stage == "vae-encode":
            return (yield from self._vae_encode(run, control, engine, key))
        if stage == "llm-encode":
            return (yield from self._llm_encode(run, control, engine, key))
        if stage == "diffuse":
            yield from self._diffuse(run, control, engine, key)
            return False
        if stage == "vae-decode":
            args = VaeDecodeArgs(vae=Path(run.spec.models.vae),
                                 load_latent=run.dir / FINAL_LATENT, output=run.dir / DECODED,
                                 common=self._common(run.spec, "vae"))
            yield from self._engine_stage(run, control, engine, args, stage)
            self._record_outputs(run, stage, {"decoded": DECODED})
            return False
        raise ValueError(stage)

    def _prepare(self, run: Run) -> None:
        spec = run.spec
        outputs: dict[str, str] = {}
        if spec.image is not None:
            from app.imaging.io import load_image, load_mask
            from app.imaging.prepare import PrepareOptions, export_prepared, prepare

            inputs = run.data["inputs"]
            image = load_image(run.dir / inputs["image"]["file"])
            mask = load_mask(run.dir / inputs["mask"]["file"]) if inputs["mask"] else None
            options = spec.prepare if spec.prepare is not None else PrepareOptions()
            prepared = prepare(image, mask, options)
            folder = run.dir / PREPARED_DIR
            export_prepared(folder, prepared)
            for name in sorted(os.listdir(folder)):
                if not name.startswith("."):
                    outputs[name] = f"{PREPARED_DIR}/{name}"
            width, height = _png_size(folder / "input.png")
        else:
            width, height = spec.width, spec.height
        run.data["size"] = [width, height]
        self._record_outputs(run, "prepare", outputs)

    def _vae_encode(self, run: Run, control: RunControl, engine: Path, key: str
                    ) -> Generator[ev.Event, None, bool]:
        spec = run.spec
        files: dict[str, str] = {}
        if spec.image is not None:
            files[INIT_LATENT] = INIT_LATENT
        if spec.refs:
            files[REF_LATENTS] = REF_LATENTS
        if self.cache.get(key, {name: run.dir / rel for name, rel in files.items()}):
            self._record_outputs(run, "vae-encode", {n: r for n, r in files.items()})
            return True
        width, height = run.data["size"]
        refs = tuple(run.dir / r["file"] for r in run.data["inputs"]["refs"])
        args = VaeEncodeArgs(
            vae=Path(spec.models.vae), width=width, height=height,
            init_image=run.dir / PREPARED_DIR / "input.png" if spec.image is not None else None,
            save_latent=run.dir / INIT_LATENT if spec.image is not None else None,
            ref_images=refs, save_ref_latents=run.dir / REF_LATENTS if refs else None,
            common=self._common(spec, "vae"))
        yield from self._engine_stage(run, control, engine, args, "vae-encode")
        self._record_outputs(run, "vae-encode", files)
        self.cache.put(key, "vae-encode", {n: run.dir / r for n, r in files.items()})
        return False

    def _llm_encode(self, run: Run, control: RunControl, engine: Path, key: str
                    ) -> Generator[ev.Event, None, bool]:
        spec = run.spec
        if self.cache.get(key, {CONDITIONING: run.dir / CONDITIONING}):
            self._record_outputs(run, "llm-encode", {CONDITIONING: CONDITIONING})
            return True
        args = LlmEncodeArgs(
            llm=Path(spec.models.llm), prompt=spec.prompt, save_embeddings=run.dir / CONDITIONING,
            negative_prompt=spec.negative_prompt if spec.cfg_scale != 1.0 else "",
            cfg_scale=spec.cfg_scale,
            lora_model_dir=Path(spec.models.lora_dir) if spec.models.lora_dir else None,
            common=self._common(spec, "te"))
        yield from self._engine_stage(run, control, engine, args, "llm-encode")
        self._record_outputs(run, "llm-encode", {CONDITIONING: CONDITIONING})
        self.cache.put(key, "llm-encode", {CONDITIONING: run.dir / CONDITIONING})
        return False

    def _diffuse(self, run: Run, control: RunControl, engine: Path, key: str
                 ) -> Generator[ev.Event, None, None]:
        spec = run.spec
        folder = run.dir / CHECKPOINT_DIR
        rec = run.stage("diffuse")
        if rec.get("checkpoint_key") != key:
            # Other inputs than the checkpoints were made with: they are worthless now.
            shutil.rmtree(folder, ignore_errors=True)
            rec["checkpoint_key"] = key
            run.data["last_completed_step"] = 0
            run.data["steps"] = effective_steps(spec)
            run.save()
        folder.mkdir(parents=True, exist_ok=True)
        valid = self._valid_checkpoints(run)
        resume = max((k for k in valid if k > 0), default=None)
        width, height = run.data["size"]
        is_img = spec.image is not None

        def args_for(resume_step: int | None) -> DiffuseArgs:
            return DiffuseArgs(
                diffusion_model=Path(spec.models.diffusion),
                load_embeddings=run.dir / CONDITIONING, width=width, height=height,
                steps=spec.steps, seed=spec.seed, save_latent=run.dir / FINAL_LATENT,
                checkpoint_dir=folder, sampling_method=spec.sampler, scheduler=spec.scheduler,
                cfg_scale=spec.cfg_scale, strength=spec.strength if is_img else None,
                init_latent=run.dir / INIT_LATENT if is_img else None,
                mask=run.dir / PREPARED_DIR / "mask.png" if is_img and spec.mask else None,
                ref_latents=run.dir / REF_LATENTS if spec.refs else None,
                prompt=spec.prompt if "<lora:" in spec.prompt else None,
                lora_model_dir=Path(spec.models.lora_dir) if spec.models.lora_dir else None,
                resume_step=resume_step, preview=spec.preview,
                vae=Path(spec.models.vae) if spec.preview == "vae" else None,
                common=self._common(spec, "diffusion"))

        if resume is not None:
            run.data["last_completed_step"] = resume
            yield ev.LogLine("diffuse", f"Resuming from the checkpoint after step {resume}.")
            try:
                yield from self._engine_stage(run, control, engine, args_for(resume), "diffuse")
            except BadInputError as exc:
                # The engine refused the checkpoint (it names the field): start over once.
                yield ev.LogLine("diffuse", f"Cannot resume ({exc.message}); starting over.")
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True, exist_ok=True)
                run.data["last_completed_step"] = 0
                run.save()
                yield from self._engine_stage(run, control, engine, args_for(None), "diffuse")
        else:
            yield from self._engine_stage(run, control, engine, args_for(None), "diffuse")
        meta = self._metadata(run)
        if meta is not None and isinstance(meta.get("steps"), int):
            run.data["steps"] = meta["steps"]
        run.data["last_completed_step"] = run.data["steps"] or run.data["last_completed_step"]
        self._record_outputs(run, "diffuse", {FINAL_LATENT: FINAL_LATENT})

    def _composite(self, run: Run) -> None:
        spec = run.spec
        target = run.dir / RESULT_FILE
        if spec.image is None:
            _copy_atomic(run.dir / DECODED, target)
        else:
            from app.imaging.io import load_image, save_png_atomic
            from app.imaging.prepare import composite_prepared, load_prepared

            prepared = load_prepared(run.dir / PREPARED_DIR)
            save_png_atomic(target, composite_prepared(prepared, load_image(run.dir / DECODED)))
        self._record_outputs(run, "composite", {RESULT_FILE: RESULT_FILE})

    # ------------------------------------------------------------------ engine processes
    def _engine_stage(self, run: Run, control: RunControl, engine: Path, args: StageArgs,
                      name: str, record: bool = True) -> Generator[ev.Event, None, None]:
        """One sd-stage process, its events translated; raises on any outcome but done."""
        stage = args.stage
        log_path = run.dir / LOG_DIR / f"{name}.log"
        argv = build_argv(engine, args)
        with StageProcess(argv, log_path=log_path, env=engine_environment(),
                          cwd=run.dir) as proc:
            yield ev.LogLine(stage, f"sd-stage pid {proc.pid}: {' '.join(argv[1:4])} …")
            run.data["engine_pid"] = proc.pid
            run.save()
            control.attach(proc)
            try:
                for event in proc.events():
                    yield from self._translate(run, stage, event, record)
                done = proc.result(ENGINE_EXIT_WAIT_S)
            finally:
                control.detach()
                run.data["engine_pid"] = None
        for out in done.outputs.values():
            if not path_inside(out, run.dir):
                raise EngineError(f"The engine reported an output outside the run folder: {out}",
                                  path=log_path)

    def _translate(self, run: Run, stage: str, event: engine_events.Event, record: bool
                   ) -> Iterator[ev.Event]:
        rec = run.stage(stage) if record else {}
        if isinstance(event, engine_events.Hello):
            if record:
                rec["device"] = event.device
                run.data["engine"]["version"] = event.version
                run.data["engine"]["pin"] = event.pin
            yield ev.DeviceReported(stage, event.device)
            yield ev.LogLine(stage, f"engine {event.version} on {event.device}")
        elif isinstance(event, engine_events.Load):
            if event.model == _STAGE_MODEL.get(stage):  # not the preview VAE's, in diffuse
                if record:
                    rec["device"] = event.device
                yield ev.DeviceReported(stage, event.device)
            yield ev.LogLine(stage, f"loaded the {event.model} model on {event.device} in "
                                    f"{event.seconds:.1f} s")
        elif isinstance(event, engine_events.Progress):
            if record and stage == "diffuse":
                run.data["steps"] = event.steps
            eta = max(event.steps - event.step, 0) * event.seconds_per_step
            yield ev.StepProgressed(event.step, event.steps, event.seconds_per_step, eta)
        elif isinstance(event, engine_events.Checkpoint):
            path = self._inside(run, event.path)
            if record:
                run.data["last_completed_step"] = event.step
                run.save()
            yield ev.CheckpointSaved(event.step, path)
        elif isinstance(event, engine_events.Preview):
            yield ev.PreviewSaved(event.step, self._inside(run, event.path))
        elif isinstance(event, engine_events.Paused):
            yield ev.Paused(event.step)
        elif isinstance(event, engine_events.Resumed):
            yield ev.Resumed(event.step)
        elif isinstance(event, engine_events.ErrorEvent):
            yield ev.LogLine(stage, f"engine error {event.code}: {event.message}")

    @staticmethod
    def _inside(run: Run, path: str) -> Path:
        if not path_inside(path, run.dir):
            raise EngineError(f"The engine reported a file outside the run folder: {path}")
        candidate = Path(path)
        return candidate if candidate.is_absolute() else run.dir / candidate

    def _common(self, spec: JobSpec, module: str) -> CommonArgs:
        d = spec.devices
        device = {"te": d.llm, "diffusion": d.diffusion, "vae": d.vae}[module]
        return CommonArgs(
            threads=d.threads if d.threads > 0 else None,
            placement=Placement(**{module: device}),
            mmap=d.mmap,
            flash_attention=d.flash_attention and module == "diffusion",
            vae_tiling=d.vae_tiling and module == "vae")

    # ------------------------------------------------------------------ bookkeeping
    def _engine(self) -> Path:
        return find_sd_stage(self._engine_path)

    def _engine_version(self, engine: Path) -> str:
        """sha256 of the binary: a rebuilt engine may compute differently, so caches split."""
        st = engine.stat()
        memo = (str(engine), st.st_size, st.st_mtime_ns)
        if memo not in self._engine_versions:
            self._engine_versions[memo] = "sha256:" + file_sha256(engine)
        return self._engine_versions[memo]

    def _keys(self, run: Run, engine: Path) -> dict[str, str | None]:
        spec = run.spec
        models = {"diffusion": model_identity(spec.models.diffusion),
                  "llm": model_identity(spec.models.llm),
                  "vae": model_identity(spec.models.vae)}
        run.data["models"] = models
        loras = lora_identities(prompt_loras(spec.prompt, spec.models.lora_dir))
        return stage_keys(spec, run.data["inputs"], models, self._engine_version(engine), loras)

    def _up_to_date(self, run: Run, stage: str, key: str | None) -> bool:
        rec = run.stage(stage)
        if rec["key"] != key or rec["state"] not in ("done", "cached"):
            return False
        for out in rec["outputs"].values():
            path = run.dir / out["file"]
            try:
                if file_sha256(path) != out["sha256"]:
                    log.warning("%s does not match run.json; running %s again", path, stage)
                    return False
            except (OSError, StepwiseError):
                return False
        if stage == "prepare" and "size" not in run.data:
            return False
        return True

    def _record_outputs(self, run: Run, stage: str, files: dict[str, str]) -> None:
        rec = run.stage(stage)
        rec["outputs"] = {name: {"file": rel, "sha256": file_sha256(run.dir / rel)}
                          for name, rel in files.items()}

    def _mark(self, run: Run, stage: str, state: str, *, key: str | None,
              seconds: float | None, cached: bool) -> None:
        rec = run.stage(stage)
        rec.update(state=state, key=key, seconds=seconds, cached=cached, message=None)
        if state in ("running", "skipped"):
            rec["outputs"] = {} if state == "skipped" else rec["outputs"]
        # Everything downstream of a stage that runs again is stale until it runs too.
        if state == "running":
            for later in STAGES[STAGES.index(stage) + 1:]:
                if run.stage(later)["state"] in ("done", "cached"):
                    run.stage(later)["state"] = "pending"
                    run.stage(later)["key"] = None
            run.data["result"] = None
        run.save()

    def _failed(self, run: Run, stage: str, message: str) -> None:
        rec = run.stage(stage)
        rec.update(state="failed", key=None, message=message)
        run.save()

    def _stopped(self, run: Run, stage: str) -> None:
        rec = run.stage(stage)
        rec.update(state="pending", key=None)
        run.save()

    def _step_after_stop(self, run: Run, exc: EngineStopped) -> int:
        valid = self._valid_checkpoints(run)
        step = max(valid, default=0)
        run.data["last_completed_step"] = step
        run.save()
        return step if valid or exc.step is None else exc.step

    def _check_control(self, run: Run, control: RunControl) -> ev.Event | None:
        if control.cancel_requested:
            return ev.RunCancelled(run.last_completed_step)
        if control.suspend_requested:
            return ev.RunSuspended(run.last_completed_step)
        return None

    def _metadata(self, run: Run) -> dict[str, Any] | None:
        path = run.dir / CHECKPOINT_DIR / "metadata.json"
        try:
            if path.stat().st_size > MAX_METADATA_BYTES:
                return None
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def _valid_checkpoints(self, run: Run) -> dict[int, Path]:
        """Checkpoints whose file hash matches metadata.json, by step."""
        meta = self._metadata(run)
        if meta is None or not isinstance(meta.get("checkpoints"), dict):
            return {}
        out: dict[int, Path] = {}
        for step_text, entry in meta["checkpoints"].items():
            try:
                step = int(step_text)
                name = entry["file"]
                digest = entry["sha256"]
            except (ValueError, TypeError, KeyError):
                continue
            if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
                continue
            path = run.dir / CHECKPOINT_DIR / name
            try:
                if file_sha256(path) == digest:
                    out[step] = path
            except (OSError, StepwiseError):
                continue
        return out

    def _share_checkpoints(self, old: Run, new: Run, upto: int, key: str) -> None:
        meta = self._metadata(old)
        valid = self._valid_checkpoints(old)
        if meta is None or not valid:
            return
        folder = new.dir / CHECKPOINT_DIR
        folder.mkdir(parents=True, exist_ok=True)
        kept = {}
        for step, path in valid.items():
            if step <= upto:
                shutil.copyfile(path, folder / path.name)
                kept[str(step)] = meta["checkpoints"][str(step)]
        if not kept:
            return
        meta["checkpoints"] = kept
        meta["last_completed_step"] = max(int(k) for k in kept)
        _write_json_atomic(folder / "metadata.json", meta)
        new.stage("diffuse")["checkpoint_key"] = key
        new.data["last_completed_step"] = meta["last_completed_step"]
        new.data["steps"] = old.steps

    def _copy_inputs(self, run: Run, spec: JobSpec) -> None:
        folder = run.dir / INPUTS_DIR
        folder.mkdir(parents=True, exist_ok=True)

        def copy_in(src: str, name: str) -> dict[str, Any]:
            suffix = Path(src).suffix.lower() or ".png"
            rel = f"{INPUTS_DIR}/{name}{suffix}"
            _copy_atomic(Path(src), run.dir / rel)
            return {"file": rel, "sha256": file_sha256(run.dir / rel), "source": str(src)}

        run.data["inputs"] = {
            "image": copy_in(spec.image, "image") if spec.image else None,
            "mask": copy_in(spec.mask, "mask") if spec.mask else None,
            "refs": [copy_in(r, f"ref_{i}") for i, r in enumerate(spec.refs)],
        }


def _png_size(path: Path) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as img:
        return int(img.width), int(img.height)


def _copy_atomic(src: Path, dest: Path) -> None:
    from app.core.atomic import write_with_atomic

    def writer(handle: Any) -> None:
        with open(src, "rb") as f:
            shutil.copyfileobj(f, handle)

    try:
        write_with_atomic(dest, writer)
    except FileNotFoundError as exc:
        raise InputError(f"{src} does not exist.", path=src) from exc


def _write_json_atomic(path: Path, data: Any) -> None:
    from app.core.atomic import write_text_atomic

    write_text_atomic(path, json.dumps(data))
