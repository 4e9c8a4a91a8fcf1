"""What a job asks for: model files, devices, prompt, images and sampling parameters."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.imaging.prepare_record import PrepareOptions
from app.pipeline.job import params as P


@dataclass(frozen=True)
class ModelFiles:
    """The three model files klein needs, plus the LoRA folder (empty = none)."""

    diffusion: str
    llm: str
    vae: str
    lora_dir: str = P.LORA_DIR.default


@dataclass(frozen=True)
class DeviceChoice:
    """Device per stage ("cpu", "vulkan0", ...) and engine switches that do not change results."""

    llm: str = P.LLM_DEVICE.default
    diffusion: str = P.DIFFUSION_DEVICE.default
    vae: str = P.VAE_DEVICE.default
    threads: int = P.THREADS.default
    flash_attention: bool = P.FLASH_ATTENTION.default
    vae_tiling: bool = P.VAE_TILING.default
    vae_tile_size: int = P.VAE_TILE_SIZE.default
    fit_memory: bool = P.FIT_MEMORY.default
    max_alloc_mb: int = P.MAX_ALLOC_MB.default
    decoded_previews: str = P.DECODED_PREVIEWS.default  # app/pipeline/execute/preview_decoder.py
    mmap: bool = P.MMAP.default


@dataclass(frozen=True)
class JobSpec:
    """One inpainting or text-to-image job; image None = text-to-image."""

    models: ModelFiles
    prompt: str
    negative_prompt: str = P.NEGATIVE_PROMPT.default
    image: str | None = None
    mask: str | None = None  # white = repaint
    refs: tuple[str, ...] = ()
    width: int = P.WIDTH.default  # from the prepared image when image is given
    height: int = P.HEIGHT.default
    steps: int = P.STEPS.default
    seed: int = P.SEED.default
    strength: float = P.STRENGTH.default
    cfg_scale: float = P.CFG_SCALE.default
    sampler: str = P.SAMPLER.default
    scheduler: str = P.SCHEDULER.default
    eta: float = P.ETA.default  # the default (-1): the sampler's own
    mask_mode: str = P.MASK_MODE.default
    preview: str = P.PREVIEW.default
    source_ref: bool = P.SOURCE_REF.default  # the photo as the first reference (with an image)
    devices: DeviceChoice = field(default_factory=DeviceChoice)
    prepare: PrepareOptions | None = None  # None: imaging's defaults (runs before params)

    @property
    def is_txt2img(self) -> bool:
        return self.image is None

    @property
    def guided(self) -> bool:
        """cfg ≠ 1 (klein is distilled for 1): the negative prompt is encoded and the diffusion
        model runs twice per step. The one owner of the rule (keys, preflight, the stage
        arguments, the plan, the advice and the queue's timing all ask it)."""
        return float(self.cfg_scale) != 1.0

    @property
    def uses_source_ref(self) -> bool:
        """The prepared photo goes to diffuse as the first reference (needs an image)."""
        return self.source_ref and self.image is not None

    @property
    def reference_count(self) -> int:
        """Reference images diffuse gets: the photo's (source_ref) and the user's."""
        return len(self.refs) + int(self.uses_source_ref)


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
    values.setdefault("mask_mode", "hard")  # recorded before --mask-mode existed: the mask was hard
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


_KIND_WORDS = {str: "text", int: "an integer", float: "a number", bool: "true or false"}


def _check_types(spec: JobSpec) -> None:
    """Every row of the parameter table has the kind the table says (a run.json read from
    disk may hold anything). The prepare group is imaging's PrepareOptions, built and checked
    there."""
    for p in P.PARAMS:
        if p.spec_field.startswith("prepare."):
            continue
        value: Any = spec
        for part in p.spec_field.split("."):
            value = getattr(value, part)
        if not _is_kind(value, p.kind):
            raise TypeError(f"spec.{p.spec_field} must be {_KIND_WORDS[p.kind]}")


def _is_kind(value: object, kind: type) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False  # true is no number here
    return isinstance(value, int | float) if kind is float else isinstance(value, kind)


def _prepare_to_dict(options: Any) -> dict[str, Any] | None:
    if options is None:
        return None
    if dataclasses.is_dataclass(options):
        return dataclasses.asdict(options)  # type: ignore[arg-type]
    if isinstance(options, dict):
        return dict(options)
    raise TypeError("prepare options must be a dataclass")


def _prepare_from_dict(data: dict[str, Any]) -> Any:
    return PrepareOptions(**data)


def effective_steps(spec: JobSpec) -> int:
    """Steps the sampler really runs: img2img truncates to floor(N * strength) + 1 (sd.cpp)."""
    if spec.is_txt2img or spec.strength >= 1.0:
        return spec.steps
    return min(spec.steps, int(spec.steps * spec.strength) + 1)


# --- values ⇄ JobSpec: the one translation (a values dict: params.py) ---------------------------
_GROUPS = ("models", "devices", "prepare")


def spec_from_values(
    values: Mapping[str, Any],
    *,
    image: str | None = None,
    mask: str | None = None,
    refs: tuple[str, ...] = (),
) -> JobSpec:
    """The JobSpec these values describe (image None = text-to-image). A name missing from
    `values` takes the table's default; the values are not range-checked (clean_values)."""
    top: dict[str, Any] = {}
    groups: dict[str, dict[str, Any]] = {g: {} for g in _GROUPS}
    for p in P.PARAMS:
        value = values.get(p.name, p.default)
        head, _, tail = p.spec_field.partition(".")
        if tail:
            groups[head][tail] = value
        else:
            top[head] = value
    return JobSpec(
        models=ModelFiles(**groups["models"]),
        devices=DeviceChoice(**groups["devices"]),
        prepare=PrepareOptions(**groups["prepare"]),
        image=image,
        mask=mask,
        refs=tuple(refs),
        **top,
    )


def values_from_spec(spec: JobSpec) -> dict[str, Any]:
    """The values a JobSpec holds (inverse of spec_from_values for every Param; a spec
    without prepare options has the table's Prepare defaults)."""
    values: dict[str, Any] = {}
    for p in P.PARAMS:
        head, _, tail = p.spec_field.partition(".")
        obj: Any = getattr(spec, head)
        if head == "prepare" and obj is None:
            obj = PrepareOptions()
        values[p.name] = getattr(obj, tail) if tail else obj
    return values
