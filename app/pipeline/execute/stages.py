"""One object per stage behind the `StageStep` protocol: its name (= its key in keys.stage_keys),
the outputs it writes and `run`, a generator of events that returns True when its outputs came
from the cache."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from app.core.errors import StepwiseError
from app.engine.argv import DiffuseArgs, LlmEncodeArgs, VaeDecodeArgs, VaeEncodeArgs
from app.engine.errors import BadInputError
from app.engine.stage import Stage
from app.engine.tensorfile import file_sha256
from app.pipeline import events as ev
from app.pipeline.cache.store import StageCache, cache_key
from app.pipeline.control import RunControl
from app.pipeline.execute.decode_check import check_decoded, check_latent
from app.pipeline.execute.engine_stage import run_engine
from app.pipeline.execute.fit import CPU, StageSettings, job_settings
from app.pipeline.execute.stage_args import (
    DiffuseFiles,
    diffuse_args,
    diffuse_masked,
    llm_encode_args,
    vae_decode_args,
    vae_encode_args,
)
from app.pipeline.job.spec import effective_steps
from app.pipeline.run import checkpoints
from app.pipeline.run.folder import (
    CHECKPOINT_DIR,
    CONDITIONING,
    DECODED,
    FINAL_LATENT,
    INIT_LATENT,
    PREPARED_DIR,
    REF_LATENTS,
    RESULT_FILE,
    SOFT_MASK,
    SOURCE_REF_FILE,
    FileRecord,
    ModelInputRecord,
    Run,
)
from app.pipeline.run.inputs import copy_atomic, verify_inputs

if TYPE_CHECKING:
    from app.imaging.prepare_record import Prepared

StageRun = Generator[ev.Event, None, bool]


@dataclass(frozen=True)
class StageContext:
    """What a stage runs with: the run, the control, the engine binary, its key, the cache."""

    run: Run
    control: RunControl
    engine: Path
    key: str
    cache: StageCache
    settings: StageSettings | None = None  # the memory settings (fit.py); None: the job's


class StageStep(Protocol):
    """One stage's work in a run."""

    name: Stage

    def outputs(self, run: Run) -> dict[str, str]:
        """Output name → file relative to the run folder (what the stage records)."""
        ...

    def run(self, ctx: StageContext) -> StageRun:
        """Writes the outputs (or takes them from the cache: returns True)."""
        ...


def record_outputs(run: Run, stage: str, files: dict[str, str]) -> None:
    run.stage(stage).outputs = {
        name: FileRecord(rel, file_sha256(run.dir / rel)) for name, rel in files.items()
    }


def _from_cache(ctx: StageContext, stage: str, files: dict[str, str]) -> bool:
    run = ctx.run
    if ctx.cache.get(ctx.key, {name: run.dir / rel for name, rel in files.items()}):
        record_outputs(run, stage, files)
        return True
    return False


class PrepareStage:
    """Aligns / fills / crops the photo as JobSpec.prepare says; records model_input."""

    name = Stage.PREPARE

    def outputs(self, run: Run) -> dict[str, str]:
        folder = run.dir / PREPARED_DIR
        if run.spec.image is None or not folder.is_dir():
            return {}
        return {
            n: f"{PREPARED_DIR}/{n}" for n in sorted(os.listdir(folder)) if not n.startswith(".")
        }

    def run(self, ctx: StageContext) -> StageRun:
        run = ctx.run
        spec = run.spec
        if spec.image is not None:
            from app.imaging.io import load_image, load_mask
            from app.imaging.prepare import PrepareOptions, export_prepared, prepare

            verify_inputs(run)
            inputs = run.inputs
            assert inputs.image is not None
            image = load_image(run.dir / inputs.image.file)
            mask = load_mask(run.dir / inputs.mask.file) if inputs.mask else None
            options = spec.prepare if spec.prepare is not None else PrepareOptions()
            prepared = prepare(image, mask, options)
            export_prepared(run.dir / PREPARED_DIR, prepared)
            _write_source_ref(run, prepared)
            height, width = prepared.image.shape[:2]
            region = tuple(prepared.record.region) if prepared.record.only_masked else None
            run.model_input = ModelInputRecord(int(width), int(height), region)  # type: ignore[arg-type]
        else:
            run.model_input = ModelInputRecord(spec.width, spec.height, None)
        record_outputs(run, self.name, self.outputs(run))
        yield from ()  # a generator without events
        return False


def _write_source_ref(run: Run, prepared: Prepared) -> None:
    """With source_ref: the crop the model gets, before the fill, for vae-encode's first -r
    (klein should see the photo, not the grey hole); without it, no stale copy is left."""
    target = run.dir / SOURCE_REF_FILE
    if not run.spec.uses_source_ref:
        target.unlink(missing_ok=True)
        return
    from app.imaging.io import save_png_atomic
    from app.imaging.prepared_folder import EXPORT_PNG_LEVEL
    from app.imaging.source_crop import unfilled_input

    source = unfilled_input(prepared.original_image, prepared.record)
    save_png_atomic(target, source, EXPORT_PNG_LEVEL)


def _ref_images(run: Run) -> tuple[Path, ...]:
    """The reference images in the engine's order: the photo's (source_ref) first."""
    refs = tuple(run.dir / r.file for r in run.inputs.refs)
    return (run.dir / SOURCE_REF_FILE, *refs) if run.spec.uses_source_ref else refs


def _settings(stage: str, run: Run, settings: StageSettings | None) -> StageSettings:
    return settings if settings is not None else job_settings(stage, run.spec.devices)


def _size(run: Run) -> tuple[int, int]:
    mi = run.model_input
    if mi is None:
        raise StepwiseError("The prepare stage has not recorded the engine's size.")
    return mi.width, mi.height


class VaeEncodeStage:
    name = Stage.VAE_ENCODE

    def outputs(self, run: Run) -> dict[str, str]:
        files = {}
        if run.spec.image is not None:
            files[INIT_LATENT] = INIT_LATENT
        if run.spec.reference_count:
            files[REF_LATENTS] = REF_LATENTS
        return files

    def args(self, run: Run, settings: StageSettings | None = None) -> VaeEncodeArgs:
        refs = _ref_images(run)
        is_img = run.spec.image is not None
        return vae_encode_args(
            run.spec,
            *_size(run),
            _settings(self.name, run, settings),
            init_image=run.dir / PREPARED_DIR / "input.png" if is_img else None,
            save_latent=run.dir / INIT_LATENT if is_img else None,
            ref_images=refs,
            save_ref_latents=run.dir / REF_LATENTS if refs else None,
        )

    def run(self, ctx: StageContext) -> StageRun:
        run = ctx.run
        files = self.outputs(run)
        if _from_cache(ctx, self.name, files):
            return True
        verify_inputs(run)
        args = self.args(run, ctx.settings)
        yield from run_engine(run, ctx.control, ctx.engine, args, self.name)
        record_outputs(run, self.name, files)
        ctx.cache.put(ctx.key, self.name, {n: run.dir / r for n, r in files.items()})
        return False


class LlmEncodeStage:
    name = Stage.LLM_ENCODE

    def outputs(self, run: Run) -> dict[str, str]:
        return {CONDITIONING: CONDITIONING}

    def args(self, run: Run, settings: StageSettings | None = None) -> LlmEncodeArgs:
        settings = _settings(self.name, run, settings)
        return llm_encode_args(run.spec, settings, run.dir / CONDITIONING)

    def run(self, ctx: StageContext) -> StageRun:
        # A GPU encode is close to, not bit-identical with, a CPU one: the conditioning is
        # cached per kind of device (CPU keys stay as they were, so existing caches still hit).
        device = _settings(self.name, ctx.run, ctx.settings).device
        if device != CPU:
            kind = "".join(c for c in device.lower() if c.isalpha())  # vulkan0 -> vulkan
            on_device = cache_key("llm-encode-on", {"key": ctx.key, "on": kind})
            ctx = dataclasses.replace(ctx, key=on_device)
        run = ctx.run
        if _from_cache(ctx, self.name, self.outputs(run)):
            return True
        args = self.args(run, ctx.settings)
        yield from run_engine(run, ctx.control, ctx.engine, args, self.name)
        record_outputs(run, self.name, self.outputs(run))
        ctx.cache.put(ctx.key, self.name, {CONDITIONING: run.dir / CONDITIONING})
        return False


class DiffuseStage:
    """Samples; resumes from the newest valid checkpoint made with the same key."""

    name = Stage.DIFFUSE

    def outputs(self, run: Run) -> dict[str, str]:
        return {FINAL_LATENT: FINAL_LATENT}

    def args(
        self, run: Run, settings: StageSettings | None = None, resume_step: int | None = None
    ) -> DiffuseArgs:
        files = DiffuseFiles(
            embeddings=run.dir / CONDITIONING,
            save_latent=run.dir / FINAL_LATENT,
            checkpoint_dir=run.dir / CHECKPOINT_DIR,
            init_latent=lambda: run.dir / INIT_LATENT,
            mask=lambda: _engine_mask(run),
            ref_latents=lambda: run.dir / REF_LATENTS,
        )
        settings = _settings(self.name, run, settings)
        return diffuse_args(run.spec, *_size(run), settings, files, resume_step=resume_step)

    def run(self, ctx: StageContext) -> StageRun:
        run, spec = ctx.run, ctx.run.spec
        checkpoints.reset_if_stale(run, ctx.key, effective_steps(spec))
        if diffuse_masked(spec) and spec.mask_mode == "soft":
            _write_soft_mask(run)
        resume = max((k for k in checkpoints.valid_checkpoints(run.dir) if k > 0), default=None)

        def args_for(resume_step: int | None) -> DiffuseArgs:
            return self.args(run, ctx.settings, resume_step)

        if resume is not None:
            run.last_completed_step = resume
            yield ev.LogLine(self.name, f"Resuming from the checkpoint after step {resume}.")
            try:
                yield from run_engine(run, ctx.control, ctx.engine, args_for(resume), self.name)
            except BadInputError as exc:
                # The engine refused the checkpoint (it names the field): start over once.
                yield ev.LogLine(self.name, f"Cannot resume ({exc.message}); starting over.")
                checkpoints.clear(run)
                yield from run_engine(run, ctx.control, ctx.engine, args_for(None), self.name)
        else:
            yield from run_engine(run, ctx.control, ctx.engine, args_for(None), self.name)
        meta = checkpoints.metadata(run.dir)
        if meta is not None and isinstance(meta.get("steps"), int):
            run.steps = meta["steps"]
        run.last_completed_step = run.steps or run.last_completed_step
        record_outputs(run, self.name, self.outputs(run))
        return False


def _engine_mask(run: Run) -> Path:
    """The mask diffuse gets: the prepared binary one, or in soft mode the composite's weights."""
    if run.spec.mask_mode == "soft":
        return run.dir / SOFT_MASK
    return run.dir / PREPARED_DIR / "mask.png"


def _write_soft_mask(run: Run) -> None:
    """SOFT_MASK from the prepared folder (the same bytes every time: a resume's metadata.json
    holds its sha256)."""
    from app.imaging.io import load_mask, save_png_atomic
    from app.imaging.prepare import load_prepared
    from app.imaging.soft_mask import soft_engine_mask

    prepared = load_prepared(run.dir / PREPARED_DIR)
    binary = load_mask(run.dir / PREPARED_DIR / "mask.png", prepared.input_size)
    save_png_atomic(run.dir / SOFT_MASK, soft_engine_mask(binary, prepared.record))


class VaeDecodeStage:
    name = Stage.VAE_DECODE

    def outputs(self, run: Run) -> dict[str, str]:
        return {"decoded": DECODED}

    def args(self, run: Run, settings: StageSettings | None = None) -> VaeDecodeArgs:
        settings = _settings(self.name, run, settings)
        return vae_decode_args(run.spec, settings, run.dir / FINAL_LATENT, run.dir / DECODED)

    def run(self, ctx: StageContext) -> StageRun:
        run = ctx.run
        (run.dir / DECODED).unlink(missing_ok=True)  # an older decode is not this latent's
        check_latent(run.dir / FINAL_LATENT)  # NaN / Inf: no decode can make a picture of it
        yield from run_engine(run, ctx.control, ctx.engine, self.args(run, ctx.settings), self.name)
        check_decoded(run.dir / DECODED)  # constant (a failed decode): never a result
        record_outputs(run, self.name, self.outputs(run))
        return False


class CompositeStage:
    """Puts the decoded picture back into the original photo (through prepare's record)."""

    name = Stage.COMPOSITE

    def outputs(self, run: Run) -> dict[str, str]:
        return {RESULT_FILE: RESULT_FILE}

    def run(self, ctx: StageContext) -> StageRun:
        run = ctx.run
        target = run.dir / RESULT_FILE
        if run.spec.image is None:
            copy_atomic(run.dir / DECODED, target)
        else:
            from app.imaging.io import load_image, save_png_atomic
            from app.imaging.prepare import PrepareOptions, load_prepared, soft_compositor

            prepared = load_prepared(run.dir / PREPARED_DIR)
            # Colour match and seam blend are the job's (they are not in the prepare record).
            blend = (run.spec.prepare or PrepareOptions()).blend
            decoded = load_image(run.dir / DECODED)
            compositor = soft_compositor(prepared, blend=blend)
            save_png_atomic(target, compositor.composite(decoded))
            # What colour match did (or why it declined), for the first real inpaints to show
            # whether real rings keep the photo's texture (issue 40).
            run.stage(self.name).color_match = compositor.color_match_record()
        record_outputs(run, self.name, self.outputs(run))
        yield from ()  # a generator without events
        return False


STAGE_OBJECTS: tuple[StageStep, ...] = (
    PrepareStage(),
    VaeEncodeStage(),
    LlmEncodeStage(),
    DiffuseStage(),
    VaeDecodeStage(),
    CompositeStage(),
)
