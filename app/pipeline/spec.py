"""What a job asks for: model files, devices, prompt, images and sampling parameters."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

# Klein is distilled: one DiT pass per step (cfg 1), few steps, flux2-like schedule.
KLEIN_STEPS = 4
KLEIN_CFG_SCALE = 1.0
KLEIN_SCHEDULER = "simple"
KLEIN_SAMPLER = "euler"
ALIGN_PX = 16
# Samplers the engine resumes bit-exactly from a checkpoint (the others carry history between
# steps; their runs start over after a suspend or crash).
RESUMABLE_SAMPLERS = frozenset({"euler", "euler_a", "heun", "dpm2", "dpm++2s_a"})


@dataclass(frozen=True)
class ModelFiles:
    """The three model files klein needs, plus the LoRA folder (empty = none)."""

    diffusion: str
    llm: str
    vae: str
    lora_dir: str = ""


@dataclass(frozen=True)
class DeviceChoice:
    """Device per stage ("cpu", "vulkan0", ...) and engine switches that do not change results."""

    llm: str = "cpu"
    diffusion: str = "cpu"
    vae: str = "cpu"
    threads: int = 0
    flash_attention: bool = True
    vae_tiling: bool = False
    mmap: bool = True


@dataclass(frozen=True)
class JobSpec:
    """One inpainting or text-to-image job; image None = text-to-image."""

    models: ModelFiles
    prompt: str
    negative_prompt: str = ""
    image: str | None = None
    mask: str | None = None  # white = repaint
    refs: tuple[str, ...] = ()
    width: int = 512  # from the prepared image when image is given
    height: int = 512
    steps: int = KLEIN_STEPS
    seed: int = 42
    strength: float = 1.0
    cfg_scale: float = KLEIN_CFG_SCALE
    sampler: str = KLEIN_SAMPLER
    scheduler: str = KLEIN_SCHEDULER
    preview: str = "proj"
    devices: DeviceChoice = field(default_factory=DeviceChoice)
    prepare: Any = None  # app.imaging.prepare.PrepareOptions | None (None = its defaults)

    @property
    def is_txt2img(self) -> bool:
        return self.image is None


def spec_to_dict(spec: JobSpec) -> dict[str, Any]:
    """Plain JSON-able form (run.json)."""
    data: dict[str, Any] = {}
    for f in dataclasses.fields(spec):
        value = getattr(spec, f.name)
        if f.name == "prepare":
            data[f.name] = _prepare_to_dict(value)
        elif dataclasses.is_dataclass(value):
            data[f.name] = dataclasses.asdict(value)  # type: ignore[arg-type]
        elif isinstance(value, tuple):
            data[f.name] = list(value)
        else:
            data[f.name] = value
    return data


def spec_from_dict(data: dict[str, Any]) -> JobSpec:
    """Inverse of spec_to_dict; raises ValueError/TypeError/KeyError on a malformed dict."""
    if not isinstance(data, dict):
        raise TypeError("spec is not an object")
    values = dict(data)
    known = {f.name for f in dataclasses.fields(JobSpec)}
    unknown = set(values) - known
    if unknown:
        raise ValueError(f"unknown spec fields: {sorted(unknown)}")
    values["models"] = ModelFiles(**values["models"])
    if "devices" in values:
        values["devices"] = DeviceChoice(**values["devices"])
    if "refs" in values:
        values["refs"] = tuple(str(r) for r in values["refs"])
    if values.get("prepare") is not None:
        values["prepare"] = _prepare_from_dict(values["prepare"])
    spec = JobSpec(**values)
    _check_types(spec)
    return spec


def _check_types(spec: JobSpec) -> None:
    for name, kind in (("prompt", str), ("negative_prompt", str), ("sampler", str),
                       ("scheduler", str), ("preview", str)):
        if not isinstance(getattr(spec, name), kind):
            raise TypeError(f"spec.{name} must be {kind.__name__}")
    for name in ("width", "height", "steps", "seed"):
        value = getattr(spec, name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"spec.{name} must be an integer")
    for name in ("strength", "cfg_scale"):
        if not isinstance(getattr(spec, name), int | float):
            raise TypeError(f"spec.{name} must be a number")


def _prepare_to_dict(options: Any) -> dict[str, Any] | None:
    if options is None:
        return None
    if dataclasses.is_dataclass(options):
        return dataclasses.asdict(options)  # type: ignore[arg-type]
    if isinstance(options, dict):
        return dict(options)
    raise TypeError("prepare options must be a dataclass")


def _prepare_from_dict(data: dict[str, Any]) -> Any:
    from app.imaging.prepare import PrepareOptions

    return PrepareOptions(**data)


def with_klein_defaults(spec: JobSpec) -> JobSpec:
    """The same job with the settings klein is distilled for (cfg 1, simple schedule)."""
    return dataclasses.replace(spec, cfg_scale=KLEIN_CFG_SCALE, scheduler=KLEIN_SCHEDULER)


def effective_steps(spec: JobSpec) -> int:
    """Steps the sampler really runs: img2img truncates to floor(N * strength) + 1 (sd.cpp)."""
    if spec.is_txt2img or spec.strength >= 1.0:
        return spec.steps
    return min(spec.steps, int(spec.steps * spec.strength) + 1)


def klein_warnings(spec: JobSpec) -> list[str]:
    """Settings that waste time or do nothing with FLUX.2 klein, in plain words."""
    notes: list[str] = []
    if spec.cfg_scale != KLEIN_CFG_SCALE:
        notes.append(
            f"CFG scale {spec.cfg_scale:g}: klein is distilled for 1.0; any other value runs the "
            "diffusion model twice per step (about double the time) and encodes the negative "
            "prompt too.")
    elif spec.negative_prompt.strip():
        notes.append("The negative prompt does nothing at CFG scale 1 (klein's setting).")
    if spec.scheduler != KLEIN_SCHEDULER:
        notes.append(
            f"Scheduler '{spec.scheduler}': 'simple' gives klein's flux2-like schedule; "
            "'discrete' nearly wastes the last step.")
    if spec.steps > 8:
        notes.append(
            f"{spec.steps} steps: klein is distilled for about 4; more steps cost time and "
            "rarely help.")
    if spec.sampler not in RESUMABLE_SAMPLERS:
        notes.append(
            f"Sampler '{spec.sampler}' carries history between steps: a suspended or crashed "
            "run starts its diffusion over. 'euler' is klein's sampler.")
    if spec.width % ALIGN_PX or spec.height % ALIGN_PX:
        notes.append(
            f"{spec.width}×{spec.height} is not a multiple of {ALIGN_PX} px; the image is "
            "aligned first.")
    if spec.image is not None and spec.mask is None and spec.strength >= 1.0:
        notes.append("Strength 1.0 without a mask replaces the whole image (like text-to-image).")
    if spec.image is not None and spec.strength < 1.0:
        notes.append(
            f"Strength {spec.strength:g} runs {effective_steps(spec)} of {spec.steps} steps.")
    return notes
