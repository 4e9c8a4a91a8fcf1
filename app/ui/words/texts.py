"""The UI's words for typed failures and notes (app.pipeline.failures): code → tr() text.

English here, 简体中文 in resources/translations/zh_CN/texts.ts. The pipeline never writes user
text for a FailureKind or a NoteCode; `detail` (the engine's or the OS's own line, naming the
file or flag) is shown beside it as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from PySide6.QtCore import QCoreApplication

from app.core.errors import ERROR_CONTEXT, fill_template
from app.pipeline.failures import Failure, FailureKind, Note, NoteCode, json_values
from app.ui.words.i18n import QT_TRANSLATE_NOOP

# (title, what to try next) per kind
_FAILURES: dict[FailureKind, tuple[str, str]] = {
    FailureKind.OUT_OF_MEMORY: (
        QT_TRANSLATE_NOOP("Texts", "Out of memory"),
        QT_TRANSLATE_NOOP(
            "Texts",
            "Try: choose CPU for this stage under Devices, turn on VAE tiling, tick "
            "\u201cOnly the masked area\u201d, or use a smaller image.",
        ),
    ),
    FailureKind.BAD_DECODE: (
        QT_TRANSLATE_NOOP("Texts", "The decode produced no picture"),
        QT_TRANSLATE_NOOP(
            "Texts",
            "It came out one colour, or the latent held NaN/Inf; no result was written. Try: "
            "VAE tiling, the VAE on the CPU, or run diffusion again from a checkpoint.",
        ),
    ),
    FailureKind.MODEL_FILE: (
        QT_TRANSLATE_NOOP("Texts", "A model file cannot be used"),
        QT_TRANSLATE_NOOP(
            "Texts", "Try: check the files under Models; each must be the right kind."
        ),
    ),
    FailureKind.INPUT: (
        QT_TRANSLATE_NOOP("Texts", "An input is not usable"),
        QT_TRANSLATE_NOOP("Texts", "Try: fix the file or setting named above, then start again."),
    ),
    FailureKind.DAMAGED: (
        QT_TRANSLATE_NOOP("Texts", "A saved file is damaged"),
        QT_TRANSLATE_NOOP("Texts", "Try: start a new run; the damaged file is not used again."),
    ),
    FailureKind.OUTPUT: (
        QT_TRANSLATE_NOOP("Texts", "A file could not be written"),
        QT_TRANSLATE_NOOP("Texts", "Try: free some disk space or choose another folder."),
    ),
    FailureKind.NO_ROOM: (
        QT_TRANSLATE_NOOP("Texts", "The disk is full"),
        QT_TRANSLATE_NOOP("Texts", "Try: free some disk space or choose another folder."),
    ),
    FailureKind.ENGINE_MISSING: (
        QT_TRANSLATE_NOOP("Texts", "The engine sd-stage is missing"),
        QT_TRANSLATE_NOOP(
            "Texts",
            "Try: choose the engine (sd-stage) in Settings, or build it with "
            "python native/build.py.",
        ),
    ),
    FailureKind.ENGINE_CRASHED: (
        QT_TRANSLATE_NOOP("Texts", "The engine stopped unexpectedly"),
        QT_TRANSLATE_NOOP(
            "Texts",
            "Try: Run all continues from the last finished step; if it fails again, open "
            "the engine log.",
        ),
    ),
    FailureKind.ENGINE_HUNG: (
        QT_TRANSLATE_NOOP("Texts", "The engine stopped making progress and was ended"),
        QT_TRANSLATE_NOOP(
            "Texts",
            "Try: Run all continues from the last finished step; if it hangs again, open "
            "the engine log.",
        ),
    ),
    FailureKind.DEVICE: (
        QT_TRANSLATE_NOOP("Texts", "The device is not available"),
        QT_TRANSLATE_NOOP("Texts", "Try: choose another device under Devices (CPU always works)."),
    ),
    FailureKind.BUSY: (
        QT_TRANSLATE_NOOP("Texts", "This run is busy"),
        QT_TRANSLATE_NOOP("Texts", "Another Stepwise works on this run; wait or start a new run."),
    ),
    FailureKind.ORDER: (
        QT_TRANSLATE_NOOP("Texts", "That stage cannot run yet"),
        QT_TRANSLATE_NOOP("Texts", "Try: Run next stage runs the stages in order."),
    ),
    FailureKind.BUG: (
        QT_TRANSLATE_NOOP("Texts", "This is a bug in Stepwise"),
        QT_TRANSLATE_NOOP(
            "Texts", "Your work is kept. The log file has the details; please report it."
        ),
    ),
}

_NOTES: dict[NoteCode, str] = {
    NoteCode.CFG_NOT_ONE: QT_TRANSLATE_NOOP(
        "Texts",
        "CFG {cfg:g}: klein is distilled for CFG 1. Any other value runs the diffusion model "
        "twice per step (about twice as slow).",
    ),
    NoteCode.NEGATIVE_UNUSED: QT_TRANSLATE_NOOP(
        "Texts", "The negative prompt does nothing at CFG 1."
    ),
    NoteCode.SCHEDULER_NOT_SIMPLE: QT_TRANSLATE_NOOP(
        "Texts",
        "Scheduler \u201c{scheduler}\u201d: \u201csimple\u201d gives klein its "
        "flux2-like schedule.",
    ),
    NoteCode.MANY_STEPS: QT_TRANSLATE_NOOP(
        "Texts", "{steps} steps: klein is distilled for about 4; more steps rarely help."
    ),
    NoteCode.SAMPLER_NOT_RESUMABLE: QT_TRANSLATE_NOOP(
        "Texts",
        "Sampler \u201c{sampler}\u201d cannot be resumed: after a suspend or a crash its "
        "diffusion starts over.",
    ),
    NoteCode.SIZE_NOT_ALIGNED: QT_TRANSLATE_NOOP(
        "Texts", "{width}×{height} is not a multiple of {align} px; it is aligned first."
    ),
    NoteCode.STRENGTH_NO_MASK: QT_TRANSLATE_NOOP(
        "Texts", "Strength 1 without a mask replaces the whole image (like text to image)."
    ),
    NoteCode.STRENGTH_STEPS: QT_TRANSLATE_NOOP(
        "Texts", "Strength {strength:g} runs {run} of {steps} steps."
    ),
    NoteCode.EMPTY_MASK: QT_TRANSLATE_NOOP(
        "Texts",
        "The mask is empty: nothing to repaint. Paint the area to change, or use Fill All "
        "to repaint the whole picture.",
    ),
    NoteCode.FLAG_NO_EFFECT: QT_TRANSLATE_NOOP(
        "Texts", "{flag} {value}: has no effect with klein; ignored."
    ),
    NoteCode.FLAG_NOT_NEEDED: QT_TRANSLATE_NOOP(
        "Texts", "{flag} {value}: not needed, Stepwise loads one model per stage."
    ),
    NoteCode.FLAG_UNKNOWN: QT_TRANSLATE_NOOP("Texts", "{flag}: not understood; ignored."),
    NoteCode.FLAG_MAPPED: QT_TRANSLATE_NOOP("Texts", "{flag} {value}: used as {target}."),
    NoteCode.SDCLI_DEFAULT_CFG: QT_TRANSLATE_NOOP(
        "Texts",
        "No --cfg-scale: sd-cli's default 7 would run the model twice per step; CFG 1 is used.",
    ),
    NoteCode.SDCLI_DEFAULT_SCHEDULER: QT_TRANSLATE_NOOP(
        "Texts",
        "No --scheduler: sd-cli's default (discrete) nearly wastes the last step; "
        "\u201csimple\u201d is used.",
    ),
    NoteCode.LORA_MISSING: QT_TRANSLATE_NOOP("Texts", "<lora:{name}> names no file in {folder}."),
    NoteCode.FLAG_NO_VALUE: QT_TRANSLATE_NOOP("Texts", "{flag} has no value; ignored."),
    NoteCode.FLAG_BAD_NUMBER: QT_TRANSLATE_NOOP("Texts", "{flag} {value}: not a number; ignored."),
    NoteCode.STRAY_WORD: QT_TRANSLATE_NOOP("Texts", "Stray word “{word}” ignored."),
    NoteCode.SEED_RANDOM: QT_TRANSLATE_NOOP(
        "Texts",
        "--seed {value}: a seed is drawn once and kept with the run, so it can be reproduced.",
    ),
    NoteCode.OUTPUT_IN_RUN_FOLDER: QT_TRANSLATE_NOOP(
        "Texts",
        "--output {value}: the result is saved in the run folder; use Save result… to copy it.",
    ),
    NoteCode.SINGLE_MODEL_FILE: QT_TRANSLATE_NOOP(
        "Texts", "--model {value}: klein needs separate diffusion, text encoder and VAE files."
    ),
    NoteCode.MODEL_NOT_GIVEN: QT_TRANSLATE_NOOP(
        "Texts", "No {flag}: choose the file under Models."
    ),
    NoteCode.SIZE_FROM_IMAGE: QT_TRANSLATE_NOOP(
        "Texts",
        "-W/-H: with a picture the size comes from the prepared picture (aligned to 16 px).",
    ),
    NoteCode.LORA_NO_FOLDER: QT_TRANSLATE_NOOP(
        "Texts", "The prompt names LoRAs but no LoRA folder is chosen; they will not load."
    ),
    NoteCode.LORA_FOLDER_UNUSED: QT_TRANSLATE_NOOP(
        "Texts", "LoRA folder: no <lora:name:weight> tag in the prompt, so no LoRA is applied."
    ),
    NoteCode.LORA_FROM_TAGS: QT_TRANSLATE_NOOP(
        "Texts",
        "LoRAs come from the prompt's tags ({loras}); changing one encodes the prompt again.",
    ),
}

# The fields a start needs, by Param.name (GenerationModel.refused)
_MISSING: dict[str, str] = {
    "diffusion_model": QT_TRANSLATE_NOOP("Texts", "Choose the diffusion model file."),
    "llm_model": QT_TRANSLATE_NOOP("Texts", "Choose the text encoder (LLM) file."),
    "vae_model": QT_TRANSLATE_NOOP("Texts", "Choose the VAE file."),
    "lora_dir": QT_TRANSLATE_NOOP("Texts", "The LoRA folder does not exist."),
    "prompt": QT_TRANSLATE_NOOP("Texts", "Write a prompt first."),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate("Texts", text)


def failure_title(kind: FailureKind) -> str:
    return _tr(_FAILURES[kind][0])


def _tr_error(text: str) -> str:
    return QCoreApplication.translate(ERROR_CONTEXT, text)


# A parameter inside a failure's sentence, by its row's name (the values' {param}: pipeline
# naming.named); a row not here keeps the CLI's "words (--flag)".
_PARAM_WORDS: dict[str, str] = {
    "prompt": QT_TRANSLATE_NOOP("Texts", "the prompt"),
    "negative_prompt": QT_TRANSLATE_NOOP("Texts", "the negative prompt"),
    "sampler": QT_TRANSLATE_NOOP("Texts", "the sampler"),
    "scheduler": QT_TRANSLATE_NOOP("Texts", "the scheduler"),
    "llm_device": QT_TRANSLATE_NOOP("Texts", "the text encoder (LLM)"),
    "diffusion_device": QT_TRANSLATE_NOOP("Texts", "the diffusion model"),
    "vae_device": QT_TRANSLATE_NOOP("Texts", "the VAE"),
    "width": QT_TRANSLATE_NOOP("Texts", "the width"),
    "height": QT_TRANSLATE_NOOP("Texts", "the height"),
    "steps": QT_TRANSLATE_NOOP("Texts", "the step count"),
    "seed": QT_TRANSLATE_NOOP("Texts", "the seed"),
    "strength": QT_TRANSLATE_NOOP("Texts", "the strength"),
    "cfg_scale": QT_TRANSLATE_NOOP("Texts", "the CFG scale"),
    "eta": QT_TRANSLATE_NOOP("Texts", "eta (noise)"),
    "mask_mode": QT_TRANSLATE_NOOP("Texts", "the mask mode"),
    "preview": QT_TRANSLATE_NOOP("Texts", "the step previews"),
    "threads": QT_TRANSLATE_NOOP("Texts", "the CPU threads"),
    "flash_attention": QT_TRANSLATE_NOOP("Texts", "flash attention"),
    "vae_tiling": QT_TRANSLATE_NOOP("Texts", "VAE tiling"),
    "vae_tile_size": QT_TRANSLATE_NOOP("Texts", "the VAE tile size"),
    "fit_memory": QT_TRANSLATE_NOOP("Texts", "“Fit settings to the device's memory”"),
    "max_alloc_mb": QT_TRANSLATE_NOOP("Texts", "the largest GPU allocation"),
    "decoded_previews": QT_TRANSLATE_NOOP("Texts", "decoded previews"),
    "mmap": QT_TRANSLATE_NOOP("Texts", "memory-mapped model files"),
    "align": QT_TRANSLATE_NOOP("Texts", "the alignment"),
    "fill": QT_TRANSLATE_NOOP("Texts", "the fill"),
    "only_masked": QT_TRANSLATE_NOOP("Texts", "“only the masked area”"),
    "padding": QT_TRANSLATE_NOOP("Texts", "the padding"),
    "feather": QT_TRANSLATE_NOOP("Texts", "the feather"),
    "masked_target": QT_TRANSLATE_NOOP("Texts", "the target size of the masked area"),
    "color_match": QT_TRANSLATE_NOOP("Texts", "colour match"),
    "color_match_strength": QT_TRANSLATE_NOOP("Texts", "the colour match strength"),
    "seam_blend": QT_TRANSLATE_NOOP("Texts", "the seam blend"),
    "source_ref": QT_TRANSLATE_NOOP("Texts", "the photo as a reference"),
    "context": QT_TRANSLATE_NOOP("Texts", "the context area"),
    "expand": QT_TRANSLATE_NOOP("Texts", "the canvas expansion"),
}
# The model-file rows, by the kind their files are named by (_MODEL_KIND).
_PARAM_KINDS = {
    "diffusion_model": "diffusion",
    "llm_model": "llm",
    "vae_model": "vae",
    "lora_dir": "lora",
}


def param_words(param: str) -> str | None:
    """A parameter as words in the UI's sentences (the model files by their kind), or None."""
    if param in _PARAM_KINDS:
        return model_kind_name(_PARAM_KINDS[param])
    return _tr(_PARAM_WORDS[param]) if param in _PARAM_WORDS else None


# An error's fix that names command-line flags, as this window says it (by the fix template).
_WINDOW_FIXES: dict[str, str] = {
    "Give that file with {found_flag} and name the {wanted} with {flag}.": QT_TRANSLATE_NOOP(
        "Texts", "Choose that file as the {found} under Model files, and choose the {wanted} file."
    ),
}


def window_values(values: Mapping[str, object]) -> dict[str, object]:
    """An error's values with its parameter and model kinds named as this window names them
    (the prompt, the VAE), not by their CLI flags ("VAE (--vae)"), and the OS's reason
    in the window's language (ui/words/os_reasons.py)."""
    out = dict(values)
    words = param_words(str(out.get("param", "")))
    if words is not None:
        out["name"] = words
    for key in ("found", "wanted"):
        kind = out.get(f"{key}_kind")
        if isinstance(kind, str) and kind in _MODEL_KIND:
            out[key] = model_kind_name(kind)
    if "reason" in out:  # the OS's words: translated where known, else quoted
        from app.ui.words.os_reasons import reason_text

        out["reason"] = reason_text(out["reason"])
    return out


def sentence(text: str) -> str:
    """A message as a sentence ("the prompt is too long" begins one)."""
    return text[:1].upper() + text[1:]


def _in_window_words(failure: Failure) -> Failure:
    return replace(failure, values=json_values(window_values(failure.values)))


def failure_message(failure: Failure) -> str:
    """What went wrong, in the UI's language: the error's template translated and filled (an
    old run.json has only its English detail, shown as it is)."""
    return sentence(_in_window_words(failure).text(_tr_error))


# Kinds whose hint names the place in this window to fix it (Devices, Settings, Run all), which
# the error's own fix (written for every caller, the CLI too) cannot.
_WINDOW_HINT_FIRST = frozenset(
    {
        FailureKind.OUT_OF_MEMORY,
        FailureKind.ENGINE_MISSING,
        FailureKind.ENGINE_CRASHED,
        FailureKind.ENGINE_HUNG,
        FailureKind.DEVICE,
        FailureKind.BUSY,
        FailureKind.BUG,
    }
)


def failure_hint(failure: Failure) -> str:
    """What to try, said once: the kind's hint for the kinds fixed in this window, else the
    error's own fix when it named one (the file, the value), else the kind's hint."""
    kind_hint = _tr(_FAILURES[failure.kind][1])
    if failure.kind in _WINDOW_HINT_FIRST:
        return kind_hint
    failure = _in_window_words(failure)
    if failure.fix in _WINDOW_FIXES:  # a fix that names flags, as this window says it
        return fill_template(_WINDOW_FIXES[failure.fix], failure.values, _tr)
    return failure.fix_text(_tr_error) or kind_hint


def failure_text(failure: Failure) -> str:
    """One line: the kind's title and what went wrong (the hint is separate)."""
    title = failure_title(failure.kind)
    message = failure_message(failure)
    return _tr("{title}: {message}").format(title=title, message=message) if message else title


def note_text(note: Note) -> str:
    source = _NOTES.get(note.code)
    if source is None:  # a code newer than this table: its name and parameters, not a crash
        details = ", ".join(f"{k}={v}" for k, v in note.params.items())
        return f"{note.code}: {details}" if details else str(note.code)
    template = _tr(source)
    try:
        return template.format(**note.params)
    except (KeyError, IndexError, ValueError):  # a translation with a wrong placeholder
        return source.format(**note.params)


# The model files' names inside sentences, by kind ("Choose the {kind} file.", a chosen file
# that is not there): one table for the file fields and the start banner.
_MODEL_KIND: dict[str, str] = {
    "diffusion": QT_TRANSLATE_NOOP("Texts", "diffusion model"),
    "llm": QT_TRANSLATE_NOOP("Texts", "text encoder (LLM)"),
    "vae": QT_TRANSLATE_NOOP("Texts", "VAE"),
    "lora": QT_TRANSLATE_NOOP("Texts", "LoRA folder"),
}
# A model file chosen but not there (GenerationModel.missing names it too): say so, naming it.
_NOT_THERE = QT_TRANSLATE_NOOP("Texts", "The {what} file {path} does not exist; choose it again.")


def model_kind_name(kind: str) -> str:
    """A model file's kind ("diffusion", "llm", "vae", "lora") as words in a sentence."""
    return _tr(_MODEL_KIND[kind]) if kind in _MODEL_KIND else kind


def missing_text(names: list[str], values: Mapping[str, object] | None = None) -> str:
    """What a start needs; a model file that is chosen (in `values`, the form's) but does not
    exist is named as such, not asked for."""
    parts = []
    for name in names:
        chosen = str((values or {}).get(name) or "")
        kind = name.removesuffix("_model")
        if chosen and name.endswith("_model") and kind in _MODEL_KIND:
            what = model_kind_name(kind)
            parts.append(_tr(_NOT_THERE).format(what=what, path=chosen))
        else:
            parts.append(_tr(_MISSING.get(name, name)))
    return " ".join(parts)
