"""Typed arguments of each sd-stage stage, turned into command lines (native/PROTOCOL.md).

Flag names are sd-cli's, so a user can copy a stage's command line from the run log and run it
by hand. `--events jsonl` is always added: the client reads nothing else from stdout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from app.core import platform
from app.engine.stage import Stage

PREVIEW_MODES = ("none", "proj", "vae")
# --mask-mode: hard repaints every masked 16-px cell for all steps; soft lets a cell of mask value
# m change only in the last m of the steps (differential inpainting; native/PROTOCOL.md, Masks).
MASK_MODES = ("soft", "hard")
# Read by the pinned ggml-vulkan (bytes): the allocation size caps how ggml chunks buffers, the
# buffer size is what it refuses (with maintenance4 it is the driver's maxBufferSize, which a
# driver like the RX 590's overstates): both, so nothing over the cap is ever asked for.
MAX_ALLOCATION_ENV = "GGML_VK_FORCE_MAX_ALLOCATION_SIZE"
MAX_BUFFER_ENV = "GGML_VK_FORCE_MAX_BUFFER_SIZE"
PLACEMENT_MODULES = ("te", "diffusion", "vae")


@dataclass(frozen=True)
class StageModel:
    """The one model a stage loads: its module in `--backend` (a Placement field) and its
    name in the engine's load event (the diffuse stage may load the VAE too, for previews)."""

    module: str
    model: str


# The one stage ↔ module table (the memory settings, the engine switches and the device a
# stage reports all read it).
STAGE_MODELS: dict[str, StageModel] = {
    Stage.VAE_ENCODE: StageModel("vae", "vae"),
    Stage.LLM_ENCODE: StageModel("te", "llm"),
    Stage.DIFFUSE: StageModel("diffusion", "diffusion"),
    Stage.VAE_DECODE: StageModel("vae", "vae"),
}
# A stage whose model runs on the CPU sees no Vulkan device at all: the pinned sd.cpp cannot keep
# the diffusion model on the CPU while it sees a GPU, and each stage is its own process. ggml
# reads the variable as a list of indices; a value with none hides every device ("none", not
# "", so no platform's handling of empty variables matters).
VISIBLE_DEVICES_ENV = "GGML_VK_VISIBLE_DEVICES"
NO_VISIBLE_DEVICES = "none"
# ... and its Vulkan loader is given no driver (the newer and the older variable; the null device
# is no driver manifest), so no driver is loaded: the instance and the device listing ggml-vulkan
# makes even with no device visible cost ~25 ms per process with Mesa's lavapipe here, and a GPU
# driver's start-up is dearer. A loader that ignores them still shows no device (above).
NO_DRIVER_ENVS = ("VK_DRIVER_FILES", "VK_ICD_FILENAMES")


@dataclass(frozen=True)
class Placement:
    """Which device runs each module, as the newer sd.cpp's `--backend` spells it.

    Values are backend names such as "cpu" or "vulkan0"; None leaves the engine's default.
    """

    te: str | None = None
    diffusion: str | None = None
    vae: str | None = None

    def backend_spec(self) -> str | None:
        parts = [f"{m}={getattr(self, m)}" for m in PLACEMENT_MODULES if getattr(self, m)]
        return ",".join(parts) or None

    def cpu_only(self) -> bool:
        """Every module named runs on the CPU (and at least one is named)."""
        chosen = [getattr(self, m) for m in PLACEMENT_MODULES if getattr(self, m)]
        return bool(chosen) and all(str(d).lower() == "cpu" for d in chosen)


@dataclass(frozen=True)
class CommonArgs:
    """Flags every stage accepts: threads, device placement and memory trade-offs."""

    threads: int | None = None
    placement: Placement = field(default_factory=Placement)
    params_backend: str | None = None  # e.g. "cpu": keep weights in RAM, compute on the GPU
    mmap: bool = False
    flash_attention: bool = False  # --diffusion-fa
    vae_tiling: bool = False
    vae_tile_size: int | None = None  # --vae-tile-size NxN (with vae_tiling)
    clip_on_cpu: bool = False
    vae_on_cpu: bool = False
    max_vram_gib: float | None = None
    # The driver's largest single allocation as the user caps it (max_alloc_mb): not a flag,
    # the environment ggml-vulkan reads (environment()).
    max_alloc_bytes: int | None = None
    # Flags the parameter table gives this stage as they are (a row's `engine_flag`: the flag
    # and its value), after every flag above.
    extra: tuple[str, ...] = ()

    def environment(self) -> dict[str, str]:
        """What the engine's environment adds for these switches (ggml-vulkan's allocation
        cap, so a driver that refuses less than it claims is never asked for more; no GPU at all
        for a stage placed on the CPU)."""
        env: dict[str, str] = {}
        if self.placement.cpu_only():
            env[VISIBLE_DEVICES_ENV] = NO_VISIBLE_DEVICES
            env.update(dict.fromkeys(NO_DRIVER_ENVS, os.devnull))
        if self.max_alloc_bytes is None:
            return env
        if self.max_alloc_bytes < 1:
            raise ValueError("max_alloc_bytes must be positive")
        cap = str(self.max_alloc_bytes)
        return {**env, MAX_ALLOCATION_ENV: cap, MAX_BUFFER_ENV: cap}

    def to_argv(self) -> list[str]:
        argv: list[str] = ["--events", "jsonl"]
        if self.threads is not None:
            if self.threads < 1:
                raise ValueError("threads must be at least 1")
            argv += ["-t", str(self.threads)]
        backend = self.placement.backend_spec()
        if backend:
            argv += ["--backend", backend]
        if self.params_backend:
            argv += ["--params-backend", self.params_backend]
        if self.max_vram_gib is not None:
            argv += ["--max-vram", _num(self.max_vram_gib)]
        if self.vae_tile_size is not None:
            argv += ["--vae-tile-size", f"{self.vae_tile_size}x{self.vae_tile_size}"]
        for flag, on in (
            ("--mmap", self.mmap),
            ("--diffusion-fa", self.flash_attention),
            ("--vae-tiling", self.vae_tiling),
            ("--clip-on-cpu", self.clip_on_cpu),
            ("--vae-on-cpu", self.vae_on_cpu),
        ):
            if on:
                argv.append(flag)
        return argv + list(self.extra)


@dataclass(frozen=True)
class VaeEncodeArgs:
    """Encode the init image and/or reference images to latents."""

    vae: Path
    width: int
    height: int
    init_image: Path | None = None
    save_latent: Path | None = None
    ref_images: tuple[Path, ...] = ()
    save_ref_latents: Path | None = None
    common: CommonArgs = field(default_factory=CommonArgs)

    stage = Stage.VAE_ENCODE

    def to_argv(self) -> list[str]:
        if self.init_image is None and not self.ref_images:
            raise ValueError("vae-encode needs an init image or reference images")
        if (self.init_image is None) != (self.save_latent is None):
            raise ValueError("vae-encode: init_image and save_latent go together")
        if bool(self.ref_images) != (self.save_ref_latents is not None):
            raise ValueError("vae-encode: ref_images and save_ref_latents go together")
        argv = _stage(self.stage) + ["--vae", _path(self.vae)] + _size(self.width, self.height)
        if self.init_image is not None:
            argv += ["-i", _path(self.init_image), "--save-latent", _path(self.save_latent)]
        for ref in self.ref_images:
            argv += ["-r", _path(ref)]
        if self.save_ref_latents is not None:
            argv += ["--save-ref-latents", _path(self.save_ref_latents)]
        return argv + self.common.to_argv()


@dataclass(frozen=True)
class LlmEncodeArgs:
    """Encode the prompt (and the negative prompt when cfg_scale != 1) to a conditioning."""

    llm: Path
    prompt: str
    save_embeddings: Path
    negative_prompt: str = ""
    cfg_scale: float = 1.0
    lora_model_dir: Path | None = None
    common: CommonArgs = field(default_factory=CommonArgs)

    stage = Stage.LLM_ENCODE

    def to_argv(self) -> list[str]:
        argv = _stage(self.stage) + ["--llm", _path(self.llm), "-p", self.prompt]
        if self.negative_prompt:
            argv += ["-n", self.negative_prompt]
        argv += ["--cfg-scale", _num(self.cfg_scale)]
        if self.lora_model_dir is not None:
            argv += ["--lora-model-dir", _path(self.lora_model_dir)]
        argv += ["--save-embeddings", _path(self.save_embeddings)]
        return argv + self.common.to_argv()


@dataclass(frozen=True)
class DiffuseArgs:
    """Run the sampler from a conditioning (and an init latent for img2img / inpainting)."""

    diffusion_model: Path
    load_embeddings: Path
    width: int
    height: int
    steps: int
    seed: int
    save_latent: Path
    checkpoint_dir: Path
    sampling_method: str = "euler"
    scheduler: str | None = None
    cfg_scale: float = 1.0
    strength: float | None = None
    init_latent: Path | None = None
    mask: Path | None = None
    mask_mode: str | None = None  # with a mask: MASK_MODES (None: the engine's hard)
    ref_latents: Path | None = None
    prompt: str | None = None  # only for <lora:...> tags that touch the DiT
    lora_model_dir: Path | None = None
    resume_step: int | None = None
    preview: str = "none"
    vae: Path | None = None  # needed for preview "vae"
    common: CommonArgs = field(default_factory=CommonArgs)

    stage = Stage.DIFFUSE

    def to_argv(self) -> list[str]:  # noqa: C901 - one check and one flag per field
        if self.steps < 1:
            raise ValueError("steps must be at least 1")
        if self.preview not in PREVIEW_MODES:
            raise ValueError(f"preview must be one of {PREVIEW_MODES}")
        if self.preview == "vae" and self.vae is None:
            raise ValueError("preview 'vae' needs the VAE")
        if self.mask is not None and self.init_latent is None:
            raise ValueError("a mask needs an init latent")
        if self.mask_mode is not None and (self.mask is None or self.mask_mode not in MASK_MODES):
            raise ValueError(f"mask_mode needs a mask and one of {MASK_MODES}")
        if self.resume_step is not None and not 0 <= self.resume_step <= self.steps:
            raise ValueError("resume_step must be within 0..steps")
        argv = _stage(self.stage) + [
            "--diffusion-model",
            _path(self.diffusion_model),
            "--load-embeddings",
            _path(self.load_embeddings),
        ]
        argv += _size(self.width, self.height)
        argv += ["--steps", str(self.steps), "--seed", str(self.seed)]
        argv += ["--sampling-method", self.sampling_method]
        if self.scheduler:
            argv += ["--scheduler", self.scheduler]
        argv += ["--cfg-scale", _num(self.cfg_scale)]
        if self.init_latent is not None:
            argv += ["--load-latent", _path(self.init_latent)]
        if self.strength is not None:
            argv += ["--strength", _num(self.strength)]
        if self.mask is not None:
            argv += ["--mask", _path(self.mask)]
        if self.mask_mode is not None:
            argv += ["--mask-mode", self.mask_mode]
        if self.ref_latents is not None:
            argv += ["--load-ref-latents", _path(self.ref_latents)]
        if self.prompt:
            argv += ["-p", self.prompt]
        if self.lora_model_dir is not None:
            argv += ["--lora-model-dir", _path(self.lora_model_dir)]
        argv += ["--checkpoint-dir", _path(self.checkpoint_dir)]
        if self.resume_step is not None:
            argv += ["--resume-step", str(self.resume_step)]
        argv += ["--preview", self.preview]
        if self.vae is not None:
            argv += ["--vae", _path(self.vae)]
        argv += ["--save-latent", _path(self.save_latent)]
        return argv + self.common.to_argv()


@dataclass(frozen=True)
class VaeDecodeArgs:
    """Decode the final latent to a PNG."""

    vae: Path
    load_latent: Path
    output: Path
    common: CommonArgs = field(default_factory=CommonArgs)

    stage = Stage.VAE_DECODE

    def to_argv(self) -> list[str]:
        argv = _stage(self.stage) + [
            "--vae",
            _path(self.vae),
            "--load-latent",
            _path(self.load_latent),
        ]
        argv += ["-o", _path(self.output)]
        return argv + self.common.to_argv()


StageArgs = VaeEncodeArgs | LlmEncodeArgs | DiffuseArgs | VaeDecodeArgs


def build_argv(binary: Path, args: StageArgs) -> list[str]:
    """The full command line: the sd-stage binary, then the stage's flags."""
    return [str(binary), *args.to_argv()]


def _path(path: Path | None) -> str:
    """Path arguments reach the engine at any length (the \\\\?\\ form on Windows)."""
    assert path is not None  # the checks in to_argv pair every optional path
    return platform.long_path(path)


def _stage(name: str) -> list[str]:
    return ["--stage", name]


def _size(width: int, height: int) -> list[str]:
    if width < 1 or height < 1:
        raise ValueError("width and height must be positive")
    return ["-W", str(width), "-H", str(height)]


def _num(value: float) -> str:
    # repr gives the shortest string that round-trips, so the engine parses the exact float.
    return repr(float(value))
