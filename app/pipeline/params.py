"""The one table of generation parameters.

Every parameter a job has is a row here: its name, type, default, the `run` flag(s), the sd-cli
spellings the importer accepts, where it lives in a JobSpec, whether it is remembered in the
settings, a help text, and the first stage whose key it changes. Settings, JobSpec defaults,
the CLI's argparse, the sd-cli importer, the stage keys and `status --json` are derived from it
(tests/pipeline/test_params.py fails when one of them disagrees).

Adding a parameter: a row here, the JobSpec field (spec.py), the engine flag it maps to
(pipeline stage adapter), and the widget that shows it (a ui/generation pane).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from app.imaging.align import ALIGN_PX  # noqa: F401 - re-exported: 16 px per latent cell

T = TypeVar("T", int, float, str, bool)

# Klein is distilled: one DiT pass per step (cfg 1), few steps, flux2-like schedule.
KLEIN_STEPS = 4
KLEIN_CFG_SCALE = 1.0
KLEIN_SCHEDULER = "simple"
KLEIN_SAMPLER = "euler"
MAX_SEED = 2**31 - 1


@dataclass(frozen=True)
class Param[T: (int, float, str, bool)]:
    """One generation parameter.

    name:        the form field, the settings key (in Settings.job) and the status key
    kind:        int | float | str | bool
    default:     the one default, used by JobSpec, Settings, the CLI and the GUI
    spec_field:  dotted path in JobSpec ("steps", "devices.vae_tiling", "prepare.align")
    flags:       `stepwise run` flags; flags[0] is the canonical long one
    sdcli_flags: sd-cli spellings the importer maps onto this parameter
    invalidates: the first stage whose key the value is part of (None: changes no result)
    choices:     the allowed values when fixed here (samplers/schedulers come from the engine)
    persist:     remembered in the settings between sessions
    """

    name: str
    kind: type[T]
    default: T
    spec_field: str
    flags: tuple[str, ...]
    help: str
    sdcli_flags: tuple[str, ...] = ()
    invalidates: str | None = None
    choices: tuple[T, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    persist: bool = True
    metavar: str | None = None


# --- models ------------------------------------------------------------------------------------
DIFFUSION_MODEL = Param("diffusion_model", str, "", "models.diffusion", ("--diffusion-model",),
                        "the FLUX.2 klein diffusion model (GGUF or safetensors)",
                        sdcli_flags=("--diffusion-model",), invalidates="diffuse",
                        metavar="PATH")
LLM_MODEL = Param("llm_model", str, "", "models.llm", ("--llm",),
                  "the Qwen3 text encoder (GGUF or safetensors)",
                  sdcli_flags=("--llm", "--qwen2vl", "--text-encoder"), invalidates="llm-encode",
                  metavar="PATH")
VAE_MODEL = Param("vae_model", str, "", "models.vae", ("--vae",), "the FLUX.2 VAE",
                  sdcli_flags=("--vae",), invalidates="vae-encode", metavar="PATH")
LORA_DIR = Param("lora_dir", str, "", "models.lora_dir", ("--lora-model-dir",),
                 "folder of the LoRAs named by <lora:name:weight> in the prompt",
                 sdcli_flags=("--lora-model-dir",), invalidates="llm-encode", metavar="DIR")

# --- prompt and sampling -------------------------------------------------------------------------
PROMPT = Param("prompt", str, "", "prompt", ("--prompt", "-p"), "what to paint",
               sdcli_flags=("-p", "--prompt"), invalidates="llm-encode", persist=True)
NEGATIVE_PROMPT = Param("negative_prompt", str, "", "negative_prompt",
                        ("--negative-prompt", "-n"), "what to avoid (used only when CFG ≠ 1)",
                        sdcli_flags=("-n", "--negative-prompt"), invalidates="llm-encode")
WIDTH = Param("width", int, 512, "width", ("--width", "-W"),
              "text-to-image width in px (multiple of 16)", sdcli_flags=("-W", "--width"),
              invalidates="prepare", minimum=64, maximum=4096)
HEIGHT = Param("height", int, 512, "height", ("--height", "-H"),
               "text-to-image height in px (multiple of 16)", sdcli_flags=("-H", "--height"),
               invalidates="prepare", minimum=64, maximum=4096)
STEPS = Param("steps", int, KLEIN_STEPS, "steps", ("--steps",), "sampling steps (klein: 4)",
              sdcli_flags=("--steps",), invalidates="diffuse", minimum=1, maximum=200)
SEED = Param("seed", int, 42, "seed", ("--seed", "-s"), "random seed (-1: draw one)",
             sdcli_flags=("-s", "--seed"), invalidates="diffuse", minimum=-1, maximum=MAX_SEED)
STRENGTH = Param("strength", float, 1.0, "strength", ("--strength",),
                 "how much of the masked area is repainted (img2img)",
                 sdcli_flags=("--strength",), invalidates="diffuse", minimum=0.0, maximum=1.0)
CFG_SCALE = Param("cfg_scale", float, KLEIN_CFG_SCALE, "cfg_scale", ("--cfg-scale",),
                  "classifier-free guidance (klein: 1; other values double the work)",
                  sdcli_flags=("--cfg-scale",), invalidates="diffuse", minimum=0.0,
                  maximum=30.0)
SAMPLER = Param("sampler", str, KLEIN_SAMPLER, "sampler", ("--sampling-method",),
                "sampler (the engine lists them)", sdcli_flags=("--sampling-method",),
                invalidates="diffuse")
SCHEDULER = Param("scheduler", str, KLEIN_SCHEDULER, "scheduler", ("--scheduler",),
                  "noise schedule (klein: simple)", sdcli_flags=("--scheduler",),
                  invalidates="diffuse")
PREVIEW = Param("preview", str, "proj", "preview", ("--preview",),
                "step previews: proj (fast), vae (accurate, slower), none",
                sdcli_flags=("--preview",), choices=("proj", "vae", "none"))

# --- devices and engine switches (never change a result) ------------------------------------------
LLM_DEVICE = Param("llm_device", str, "cpu", "devices.llm", ("--llm-device",),
                   "device of the text encoder (cpu, vulkan0, ...)", metavar="DEV")
DIFFUSION_DEVICE = Param("diffusion_device", str, "cpu", "devices.diffusion",
                         ("--diffusion-device",), "device of the diffusion model", metavar="DEV")
VAE_DEVICE = Param("vae_device", str, "cpu", "devices.vae", ("--vae-device",),
                   "device of the VAE", metavar="DEV")
THREADS = Param("threads", int, 0, "devices.threads", ("--threads", "-t"),
                "CPU threads (0: the engine chooses)", sdcli_flags=("-t", "--threads"),
                minimum=0, maximum=256)
FLASH_ATTENTION = Param("flash_attention", bool, True, "devices.flash_attention",
                        ("--diffusion-fa",), "flash attention in the diffusion model",
                        sdcli_flags=("--diffusion-fa",))
VAE_TILING = Param("vae_tiling", bool, False, "devices.vae_tiling", ("--vae-tiling",),
                   "decode/encode the VAE in tiles (less memory)", sdcli_flags=("--vae-tiling",))
MMAP = Param("mmap", bool, True, "devices.mmap", ("--mmap",), "memory-map the model files",
             sdcli_flags=("--mmap",))

# --- Prepare (the painter's panel; the names `prepare` uses) -------------------------------------
ALIGN = Param("align", str, "pad", "prepare.align", ("--align",),
              "how to reach a multiple of 16 px: pad (undone exactly), crop, scale",
              invalidates="prepare", choices=("pad", "crop", "scale"))
FILL = Param("fill", str, "grey", "prepare.fill", ("--fill",),
             "what the masked area holds for the model: grey (50 %), blur, none",
             invalidates="prepare", choices=("grey", "blur", "none"))
ONLY_MASKED = Param("only_masked", bool, False, "prepare.only_masked", ("--only-masked",),
                    "generate only the mask's bounding box (plus padding)",
                    invalidates="prepare")
PADDING = Param("padding", int, 64, "prepare.padding_px", ("--padding",),
                "context around the mask with --only-masked, px", invalidates="prepare",
                minimum=0, maximum=1024, metavar="PX")
FEATHER = Param("feather", int, 8, "prepare.feather_px", ("--feather",),
                "soft edge of the composite, px", invalidates="prepare", minimum=0, maximum=256,
                metavar="PX")

PARAMS: tuple[Param, ...] = (
    DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL, LORA_DIR,
    PROMPT, NEGATIVE_PROMPT, WIDTH, HEIGHT, STEPS, SEED, STRENGTH, CFG_SCALE, SAMPLER, SCHEDULER,
    PREVIEW,
    LLM_DEVICE, DIFFUSION_DEVICE, VAE_DEVICE, THREADS, FLASH_ATTENTION, VAE_TILING, MMAP,
    ALIGN, FILL, ONLY_MASKED, PADDING, FEATHER,
)
BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}


def param(name: str) -> Param:
    """The row called `name` (KeyError names the unknown parameter)."""
    return BY_NAME[name]


# --- the one mapping between form values, settings and JobSpec (owned here) -------------------
# A "values" dict maps every Param.name to a value of its kind. The GUI's job form, the
# settings' job section and the CLI all hold values; spec_from_values/values_from_spec are the
# only translation to and from a JobSpec.


def default_values() -> dict[str, Any]:
    """Every parameter at its default."""
    return {p.name: p.default for p in PARAMS}


def clean_values(raw: Mapping[str, object]) -> tuple[dict[str, Any], list[str]]:
    """Values checked against the table (kind, choices, range); a bad or missing value becomes
    the default. Returns the values and the names that were replaced (unknown keys dropped)."""
    raise NotImplementedError  # owned by the params/CLI work


def spec_from_values(values: Mapping[str, Any], *, image: str | None = None,
                     mask: str | None = None, refs: tuple[str, ...] = ()) -> Any:
    """The JobSpec these values describe (image None = text-to-image)."""
    raise NotImplementedError


def values_from_spec(spec: Any) -> dict[str, Any]:
    """The values a JobSpec holds (inverse of spec_from_values for every Param)."""
    raise NotImplementedError
