"""The tooltip of each widget bound to a parameter: the UI's own words, translated.

The parameter table's `help` is the CLI's (`--help`, flags, English); a bound widget never shows
it. bind() takes its tooltip from here when the pane set none, and a parameter the UI binds
without a line here gets no tooltip rather than an English one (no test checks that every
bound parameter has one: give a new one its line).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.ui.words.i18n import QT_TRANSLATE_NOOP

TR_CONTEXT = "ParamTips"


TIPS: dict[str, str] = {
    "width": QT_TRANSLATE_NOOP(
        "ParamTips",
        "Width of a picture made from text, in px (a multiple of 16); "
        "with a photo open, the photo's size is used",
    ),
    "height": QT_TRANSLATE_NOOP(
        "ParamTips",
        "Height of a picture made from text, in px (a multiple of 16); "
        "with a photo open, the photo's size is used",
    ),
    "steps": QT_TRANSLATE_NOOP("ParamTips", "Sampling steps (klein: 4)"),
    "seed": QT_TRANSLATE_NOOP(
        "ParamTips", "Random seed (-1: draw one; the run records the seed it used)"
    ),
    "strength": QT_TRANSLATE_NOOP(
        "ParamTips",
        "How much of the masked area is repainted (below 1: the old picture shows through, "
        "fewer steps run)",
    ),
    "sampler": QT_TRANSLATE_NOOP("ParamTips", "The sampler (the engine lists them)"),
    "scheduler": QT_TRANSLATE_NOOP("ParamTips", "The noise schedule (klein: simple)"),
    "cfg_scale": QT_TRANSLATE_NOOP(
        "ParamTips", "Classifier-free guidance (klein: 1; other values double the work)"
    ),
    "preview": QT_TRANSLATE_NOOP(
        "ParamTips", "Step previews: fast (a projection), accurate (the VAE, slower) or none"
    ),
    "prompt": QT_TRANSLATE_NOOP("ParamTips", "What to paint in the masked area"),
    "negative_prompt": QT_TRANSLATE_NOOP(
        "ParamTips", "What to avoid (used only when the CFG scale is not 1)"
    ),
    "diffusion_model": QT_TRANSLATE_NOOP(
        "ParamTips", "The FLUX.2 klein diffusion model (a GGUF or safetensors file)"
    ),
    "llm_model": QT_TRANSLATE_NOOP(
        "ParamTips", "The Qwen3 text encoder (a GGUF or safetensors file)"
    ),
    "vae_model": QT_TRANSLATE_NOOP("ParamTips", "The FLUX.2 VAE (a safetensors file)"),
    "lora_dir": QT_TRANSLATE_NOOP(
        "ParamTips", "The folder of the LoRAs that <lora:name:weight> tags in the prompt name"
    ),
    "llm_device": QT_TRANSLATE_NOOP("ParamTips", "The device that runs the text encoder"),
    "diffusion_device": QT_TRANSLATE_NOOP("ParamTips", "The device that runs the diffusion model"),
    "vae_device": QT_TRANSLATE_NOOP("ParamTips", "The device that runs the VAE"),
    "vae_tiling": QT_TRANSLATE_NOOP(
        "ParamTips", "Encode and decode with the VAE in tiles (less memory, slower)"
    ),
    "vae_tile_size": QT_TRANSLATE_NOOP(
        "ParamTips", "Smaller tiles need less memory and take longer."
    ),
    "padding": QT_TRANSLATE_NOOP(
        "ParamTips",
        "With Only masked: how many px of the photo around the mask the model sees",
    ),
    "source_ref": QT_TRANSLATE_NOOP(
        "ParamTips", "Give klein the photo as its first reference image"
    ),
    "fit_memory": QT_TRANSLATE_NOOP(
        "ParamTips", "Plan each stage's memory first and choose settings that fit the device"
    ),
    "max_alloc_mb": QT_TRANSLATE_NOOP(
        "ParamTips",
        "The GPU's largest single allocation, MB (0: as the driver reports; lower it for "
        "drivers that refuse less than they claim)",
    ),
    "align": QT_TRANSLATE_NOOP(
        "ParamTips", "How the picture reaches a multiple of 16 px: pad, crop or scale"
    ),
    "fill": QT_TRANSLATE_NOOP("ParamTips", "What the masked area holds for the model"),
    "only_masked": QT_TRANSLATE_NOOP(
        "ParamTips", "Generate only the mask's bounding box (plus padding) at full detail"
    ),
    "masked_target": QT_TRANSLATE_NOOP(
        "ParamTips", "With Only masked: the region is scaled to about N×N px for the model"
    ),
    "feather": QT_TRANSLATE_NOOP("ParamTips", "The soft edge of the composite, px"),
    "mask_mode": QT_TRANSLATE_NOOP("ParamTips", "How the mask limits the change while sampling"),
    "color_match": QT_TRANSLATE_NOOP(
        "ParamTips", "Match the generated colours to the unmasked ring around the mask"
    ),
    "color_match_strength": QT_TRANSLATE_NOOP(
        "ParamTips", "How much of the colour match is applied (0: none, 1: all)"
    ),
    "seam_blend": QT_TRANSLATE_NOOP(
        "ParamTips", "Make the generated area meet the photo smoothly at the seam"
    ),
}


def param_tip(name: str) -> str:
    """The translated tooltip for the parameter `name`; "" when the UI has none."""
    source = TIPS.get(name)
    return QCoreApplication.translate(TR_CONTEXT, source) if source else ""
