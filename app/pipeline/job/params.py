"""The one table of generation parameters.

Every parameter a job has is a row here: its name, type, default, the `run` flag(s), the sd-cli
spellings the importer accepts, where it lives in a JobSpec, whether it is remembered in the
settings, a help text, and the first stage whose key it changes. Settings, JobSpec defaults,
the CLI's argparse, the sd-cli importer, the stage keys and `status --json` are derived from it
(tests/pipeline/test_params.py fails when one of them disagrees).

Adding a parameter (ARCHITECTURE.md "Where a change goes"): a row here (PARAMS is every row
defined) with its `engine_flag`, the JobSpec field (spec.py, its default read from the row),
and the widget that shows it (a ui/generation pane, its zh_CN words). The engine's command line
(execute/stage_args.row_flags, for the run, the plan, `measure` and decode alike), the CLI
flag, the importer, the settings, the stage key (a row with `invalidates` joins that stage's
key by itself, keys.py), run.json's type check and `status --json` need nothing: 2 files, +2
for a widget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from app.engine.argv import MASK_MODES
from app.engine.stage import Stage
from app.imaging.align import ALIGN_MODES
from app.imaging.align import ALIGN_PX as ALIGN_PX  # re-exported: 16 px per latent cell
from app.imaging.color_match import COLOR_MATCH_MODES, SEAM_BLENDS
from app.imaging.fill import FILL_MODES
from app.imaging.prepare_record import (
    MAX_FEATHER_PX,
    MAX_MASKED_TARGET,
    MAX_PADDING_PX,
    PrepareOptions,
)

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
    engine_flag: the sd-stage flag its value is given as, to its `invalidates` stage, when it
                 is not the default (execute/stage_args.row_flags); None: the code passes it
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
    engine_flag: str | None = None


_PREPARE = PrepareOptions()  # imaging owns the Prepare defaults; the table reads them

# --- models ------------------------------------------------------------------------------------
DIFFUSION_MODEL = Param(
    "diffusion_model", str, "", "models.diffusion", ("--diffusion-model",),
    "the FLUX.2 klein diffusion model (GGUF or safetensors)",
    sdcli_flags=("--diffusion-model",), invalidates=Stage.DIFFUSE, metavar="PATH",
)  # fmt: skip
LLM_MODEL = Param(
    "llm_model", str, "", "models.llm", ("--llm",), "the Qwen3 text encoder (GGUF or safetensors)",
    sdcli_flags=("--llm", "--qwen2vl", "--text-encoder"), invalidates=Stage.LLM_ENCODE,
    metavar="PATH",
)  # fmt: skip
VAE_MODEL = Param(
    "vae_model", str, "", "models.vae", ("--vae",), "the FLUX.2 VAE",
    sdcli_flags=("--vae",), invalidates=Stage.VAE_ENCODE, metavar="PATH",
)  # fmt: skip
LORA_DIR = Param(
    "lora_dir", str, "", "models.lora_dir", ("--lora-model-dir",),
    "folder of the LoRAs named by <lora:name:weight> in the prompt",
    sdcli_flags=("--lora-model-dir",), invalidates=Stage.LLM_ENCODE, metavar="DIR",
)  # fmt: skip

# --- prompt and sampling -------------------------------------------------------------------------
PROMPT = Param(
    "prompt", str, "", "prompt", ("--prompt", "-p"), "what to paint",
    sdcli_flags=("-p", "--prompt"), invalidates=Stage.LLM_ENCODE,
)  # fmt: skip
NEGATIVE_PROMPT = Param(
    "negative_prompt", str, "", "negative_prompt", ("--negative-prompt", "-n"),
    "what to avoid (used only when CFG is not 1)",
    sdcli_flags=("-n", "--negative-prompt"), invalidates=Stage.LLM_ENCODE,
)  # fmt: skip
WIDTH = Param(
    "width", int, 512, "width", ("--width", "-W"),
    "text-to-image width in px (multiple of 16; with an image its size is used)",
    sdcli_flags=("-W", "--width"), invalidates=Stage.PREPARE, minimum=64, maximum=4096,
)  # fmt: skip
HEIGHT = Param(
    "height", int, 512, "height", ("--height", "-H"),
    "text-to-image height in px (multiple of 16; with an image its size is used)",
    sdcli_flags=("-H", "--height"), invalidates=Stage.PREPARE, minimum=64, maximum=4096,
)  # fmt: skip
STEPS = Param(
    "steps", int, KLEIN_STEPS, "steps", ("--steps",), "sampling steps (klein: 4)",
    sdcli_flags=("--steps",), invalidates=Stage.DIFFUSE, minimum=1, maximum=200,
)  # fmt: skip
SEED = Param(
    "seed", int, 42, "seed", ("--seed", "-s"),
    "random seed (-1: draw one; the run records the seed it used)",
    sdcli_flags=("-s", "--seed"), invalidates=Stage.DIFFUSE, minimum=-1, maximum=MAX_SEED,
)  # fmt: skip
STRENGTH = Param(
    "strength", float, 1.0, "strength", ("--strength",),
    "how much of the masked area is repainted (below 1: img2img, fewer steps)",
    sdcli_flags=("--strength",), invalidates=Stage.DIFFUSE, minimum=0.0, maximum=1.0,
)  # fmt: skip
# cfg 1 vs any other value decides whether the negative prompt is encoded (llm-encode's key).
CFG_SCALE = Param(
    "cfg_scale", float, KLEIN_CFG_SCALE, "cfg_scale", ("--cfg-scale",),
    "classifier-free guidance (klein: 1; other values double the work)",
    sdcli_flags=("--cfg-scale",), invalidates=Stage.LLM_ENCODE, minimum=0.0, maximum=30.0,
)  # fmt: skip
SAMPLER = Param(
    "sampler", str, KLEIN_SAMPLER, "sampler", ("--sampling-method",),
    "sampler (the engine lists them)", sdcli_flags=("--sampling-method",),
    invalidates=Stage.DIFFUSE, metavar="NAME",
)  # fmt: skip
SCHEDULER = Param(
    "scheduler", str, KLEIN_SCHEDULER, "scheduler", ("--scheduler",),
    "noise schedule (klein: simple)", sdcli_flags=("--scheduler",), invalidates=Stage.DIFFUSE,
    metavar="NAME",
)  # fmt: skip
# sd-cli's --eta, passed unless it is the default (-1: not given, the engine chooses by sampler).
ETA = Param(
    "eta", float, -1.0, "eta", ("--eta",),
    "noise added back per step by the ancestral and SDE samplers (euler_a, dpm++2s_a, er_sde; "
    "ddim_trailing, tcd, res_*): 0 (or less) none, 1 full; -1: the sampler's own (1 for "
    "euler_a, dpm++2s_a and er_sde, else 0)",
    sdcli_flags=("--eta",), invalidates=Stage.DIFFUSE, minimum=-1.0, maximum=1.0, metavar="F",
    engine_flag="--eta",
)  # fmt: skip
MASK_MODE = Param(
    "mask_mode", str, "soft", "mask_mode", ("--mask-mode",),
    "how the mask limits the change while sampling: soft (a cell of mask value m changes only "
    "in the last m of the steps, so a feathered edge blends), hard (every masked 16-px cell is "
    "repainted fully, as sd-cli does)", invalidates=Stage.DIFFUSE, choices=MASK_MODES,
)  # fmt: skip
PREVIEW = Param(
    "preview", str, "proj", "preview", ("--preview",),
    "step previews: proj (fast), vae (accurate, slower), none",
    sdcli_flags=("--preview",), choices=("proj", "vae", "none"),
)  # fmt: skip

# --- devices and engine switches (never change a result) ------------------------------------------
LLM_DEVICE = Param(
    "llm_device", str, "cpu", "devices.llm", ("--llm-device",),
    "device of the text encoder (cpu, vulkan0, ...)", metavar="DEV",
)  # fmt: skip
DIFFUSION_DEVICE = Param(
    "diffusion_device", str, "cpu", "devices.diffusion", ("--diffusion-device",),
    "device of the diffusion model", metavar="DEV",
)  # fmt: skip
VAE_DEVICE = Param(
    "vae_device", str, "cpu", "devices.vae", ("--vae-device",), "device of the VAE",
    metavar="DEV",
)  # fmt: skip
THREADS = Param(
    "threads", int, 0, "devices.threads", ("--threads", "-t"),
    "CPU threads (0: the engine chooses)", sdcli_flags=("-t", "--threads"),
    minimum=0, maximum=256,
)  # fmt: skip
FLASH_ATTENTION = Param(
    "flash_attention", bool, True, "devices.flash_attention", ("--diffusion-fa",),
    "flash attention in the diffusion model", sdcli_flags=("--diffusion-fa",),
)  # fmt: skip
VAE_TILING = Param(
    "vae_tiling", bool, False, "devices.vae_tiling", ("--vae-tiling",),
    "decode/encode the VAE in tiles (less memory)", sdcli_flags=("--vae-tiling",),
)  # fmt: skip
VAE_TILE_SIZE = Param(
    "vae_tile_size", int, 32, "devices.vae_tile_size", ("--vae-tile-size",),
    "VAE tile size in latent cells with --vae-tiling (smaller: less memory)",
    sdcli_flags=("--vae-tile-size",), minimum=8, maximum=256, metavar="N",
)  # fmt: skip
FIT_MEMORY = Param(
    "fit_memory", bool, True, "devices.fit_memory", ("--fit-memory",),
    "plan each stage's memory first and choose settings that fit the device",
)  # fmt: skip
MAX_ALLOC_MB = Param(
    "max_alloc_mb", int, 0, "devices.max_alloc_mb", ("--max-alloc-mb",),
    "the GPU's largest single allocation, MB (0: as the driver reports; lower it for drivers "
    "that refuse less than they claim)", minimum=0, maximum=1048576, metavar="MB",
)  # fmt: skip
DECODED_PREVIEWS = Param(
    "decoded_previews", str, "auto", "devices.decoded_previews", ("--decoded-previews",),
    "decode each step's preview with the VAE on the CPU in a low-priority background process "
    "(no GPU memory): auto (when the diffusion model runs on a GPU), on, off",
    choices=("auto", "on", "off"),
)  # fmt: skip
MMAP = Param(
    "mmap", bool, True, "devices.mmap", ("--mmap",), "memory-map the model files",
    sdcli_flags=("--mmap",),
)  # fmt: skip

# --- Prepare (the painter's panel; the names `prepare` uses; defaults from imaging) --------------
ALIGN = Param(
    "align", str, _PREPARE.align, "prepare.align", ("--align",),
    "how to reach a multiple of 16 px: pad (undone exactly), crop, scale",
    invalidates=Stage.PREPARE, choices=ALIGN_MODES,
)  # fmt: skip
FILL = Param(
    "fill", str, _PREPARE.fill, "prepare.fill", ("--fill",),
    "what the masked area holds for the model: grey (50 %), blur, none (keep), telea / ns "
    "(OpenCV inpainting from the surroundings), border (the nearest outside colour)",
    invalidates=Stage.PREPARE, choices=FILL_MODES,
)  # fmt: skip
ONLY_MASKED = Param(
    "only_masked", bool, _PREPARE.only_masked, "prepare.only_masked", ("--only-masked",),
    "generate only the mask's bounding box (plus padding) at full detail",
    invalidates=Stage.PREPARE,
)  # fmt: skip
PADDING = Param(
    "padding", int, _PREPARE.padding_px, "prepare.padding_px", ("--padding",),
    "context around the mask with --only-masked, px", invalidates=Stage.PREPARE,
    minimum=0, maximum=MAX_PADDING_PX, metavar="PX",
)  # fmt: skip
FEATHER = Param(
    "feather", int, _PREPARE.feather_px, "prepare.feather_px", ("--feather",),
    "soft edge of the composite, px", invalidates=Stage.PREPARE,
    minimum=0, maximum=MAX_FEATHER_PX, metavar="PX",
)  # fmt: skip

MASKED_TARGET = Param(
    "masked_target", int, _PREPARE.masked_target, "prepare.masked_target", ("--masked-target",),
    "with --only-masked: scale the region to about N×N px for the model and back (0: keep)",
    invalidates=Stage.PREPARE, minimum=0, maximum=MAX_MASKED_TARGET, metavar="PX",
)  # fmt: skip

# --- composite (the Prepare panel shows them; they change only the composite) ------------
COLOR_MATCH = Param(
    "color_match", str, _PREPARE.color_match, "prepare.color_match", ("--color-match",),
    "take the model's colour drift out: read from the unmasked part of the repainted cells, "
    "only from pixels that kept the photo's texture (declines where none did)",
    invalidates=Stage.COMPOSITE, choices=COLOR_MATCH_MODES,
)  # fmt: skip
COLOR_MATCH_STRENGTH = Param(
    "color_match_strength", float, _PREPARE.color_match_strength,
    "prepare.color_match_strength", ("--color-match-strength",),
    "how much of the colour match is applied (0: none, 1: all)", invalidates=Stage.COMPOSITE,
    minimum=0.0, maximum=1.0, metavar="F",
)  # fmt: skip
SEAM_BLEND = Param(
    "seam_blend", str, _PREPARE.seam_blend, "prepare.seam_blend", ("--seam-blend",),
    "poisson: a gradient-domain correction that makes the generated area meet the photo "
    "at the seam", invalidates=Stage.COMPOSITE, choices=SEAM_BLENDS,
)  # fmt: skip

# --- reference images ------------------------------------------------------------------------
# The photo as klein's first reference (the crop before the fill). One more image of tokens per
# step (bench/source_ref_cost.py: 9B at 1024² no longer fits 8 GB), so off; presets turn it on.
SOURCE_REF = Param(
    "source_ref", bool, False, "source_ref", ("--source-ref",),
    "give klein the photo (the prepared crop, before the fill) as its first reference image, "
    "before the -r ones (one more image of tokens per step)",
    invalidates=Stage.PREPARE,
)  # fmt: skip

# Both are checked (four whole numbers, inside the picture) by app/imaging/frame.py.
CONTEXT = Param(
    "context", str, _PREPARE.context, "prepare.context", ("--context",),
    "with --only-masked: a rectangle X,Y,W,H of the photo (px) the model sees as well as the "
    "mask's box; the region generated is their union (empty: the mask's box alone)",
    invalidates=Stage.PREPARE, persist=False, metavar="X,Y,W,H",
)  # fmt: skip
EXPAND = Param(
    "expand", str, _PREPARE.expand, "prepare.expand", ("--expand",),
    "outpaint: pixels added on the left, top, right and bottom; the new area is pre-filled, "
    "generated and blended into the old picture (empty: none)",
    invalidates=Stage.PREPARE, persist=False, metavar="L,T,R,B",
)  # fmt: skip

# Every row above, in the order it is defined (the CLI's help, the form and `status --json`
# follow it): a row is in the table by being defined here, there is no list to extend by hand.
PARAMS: tuple[Param, ...] = tuple(v for v in list(globals().values()) if isinstance(v, Param))
BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}


def param(name: str) -> Param:
    """The row called `name` (KeyError names the unknown parameter)."""
    return BY_NAME[name]


# --- values: a dict mapping every Param.name to a value of its kind ----------------------------
# The GUI's job form, the settings' job section and the CLI all hold values; they are checked
# here, and spec.py's spec_from_values/values_from_spec are the only translation to and from a
# JobSpec.


def default_values() -> dict[str, Any]:
    """Every parameter at its default."""
    return {p.name: p.default for p in PARAMS}


def clean_values(raw: Mapping[str, object]) -> tuple[dict[str, Any], list[str]]:
    """Values checked against the table (kind, choices, range); a bad or missing value becomes
    the default. Returns the values and the names of the values that were present but bad
    (a missing one is not reported: a parameter added since the file was written); unknown
    keys are dropped."""
    values = default_values()
    bad: list[str] = []
    if not isinstance(raw, Mapping):
        return values, bad
    for p in PARAMS:
        if p.name not in raw:
            continue
        ok, value = check_value(p, raw[p.name])
        if ok:
            values[p.name] = value
        else:
            bad.append(p.name)
    return values, bad


def check_value(p: Param, value: object) -> tuple[bool, Any]:
    """(True, the value in p's kind) when `value` is allowed for `p`; (False, None) otherwise.
    An int is accepted for a float parameter (a finite one); a bool is never a number; text
    holds no NUL and no lone surrogate."""
    if p.kind is bool:
        if not isinstance(value, bool):
            return False, None
    elif p.kind is int:
        if not isinstance(value, int) or isinstance(value, bool):
            return False, None
    elif p.kind is float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return False, None
        value = float(value)
        if not math.isfinite(value):  # NaN passes every comparison below
            return False, None
    elif not isinstance(value, p.kind):
        return False, None
    elif p.kind is str and unclean_char(value) is not None:
        return False, None
    if p.choices is not None and value not in p.choices:
        return False, None
    if p.minimum is not None and value < p.minimum:
        return False, None
    if p.maximum is not None and value > p.maximum:
        return False, None
    return True, value


def unclean_char(text: str) -> int | None:
    """The index of the first character that is not clean text (NUL, a lone surrogate: what
    invalid UTF-8 on a command line becomes), or None."""
    for i, ch in enumerate(text):
        if ch == "\0" or "\ud800" <= ch <= "\udfff":
            return i
    return None
