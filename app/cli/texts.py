"""The CLI's English for every failure kind and note code (the GUI's tr() texts for the same
codes are app/ui/words/texts.py). Notes are formatted with their parameters."""

from __future__ import annotations

import re

from app.core.errors import StepwiseError
from app.core.program import typed
from app.pipeline import failure_for
from app.pipeline.failures import FailureKind, Note, NoteCode

FAILURE_TEXTS: dict[FailureKind, str] = {
    FailureKind.OUT_OF_MEMORY: "Out of memory. Try a smaller picture, 'only masked', VAE "
    "tiling, or put a stage on the CPU.",
    FailureKind.BAD_DECODE: "The decode produced no picture (one colour, or NaN/Inf in the "
    "latent); no result was written.",
    FailureKind.MODEL_FILE: "A model file is missing, unreadable or of the wrong kind. Check "
    "the --diffusion-model, --llm and --vae files.",
    FailureKind.INPUT: "An input is wrong (image, mask, reference or a parameter).",
    FailureKind.DAMAGED: "A file Stepwise wrote earlier is damaged; it was not used.",
    FailureKind.OUTPUT: "An output could not be written (disk full or a read-only folder?).",
    FailureKind.NO_ROOM: "The disk is full; free some space or choose another folder.",
    FailureKind.ENGINE_MISSING: "The sd-stage engine was not found. Build it (native/build.py) "
    "or pass --engine PATH.",
    FailureKind.ENGINE_CRASHED: "The engine stopped unexpectedly; the steps it finished are kept.",
    FailureKind.ENGINE_HUNG: "The engine stopped making progress and was ended; the steps it "
    "finished are kept.",
    FailureKind.DEVICE: "The chosen device is not there or was lost. `{selftest}` "
    "lists what runs where.",
    FailureKind.BUSY: "Another Stepwise process is working on this run.",
    FailureKind.ORDER: "That stage needs the stages before it to run first.",
    FailureKind.BUG: "Stepwise itself failed unexpectedly (the log has the details); please "
    "report it.",
}

NOTE_TEXTS: dict[NoteCode, str] = {
    NoteCode.CFG_NOT_ONE: "CFG scale {cfg:g}: klein is distilled for 1.0; any other value runs "
    "the diffusion model twice per step (about double the time) and encodes the negative "
    "prompt too.",
    NoteCode.NEGATIVE_UNUSED: "The negative prompt does nothing at CFG scale 1 (klein's setting).",
    NoteCode.SCHEDULER_NOT_SIMPLE: "Scheduler '{scheduler}': 'simple' gives klein's flux2-like "
    "schedule; 'discrete' nearly wastes the last step.",
    NoteCode.MANY_STEPS: "{steps} steps: klein is distilled for about 4; more steps cost time "
    "and rarely help.",
    NoteCode.SAMPLER_NOT_RESUMABLE: "Sampler '{sampler}' cannot resume from a checkpoint: a "
    "suspended or crashed run starts its diffusion over. 'euler' is klein's sampler.",
    NoteCode.SIZE_NOT_ALIGNED: "{width}×{height} is not a multiple of {align} px; the image "
    "is aligned first.",
    NoteCode.STRENGTH_NO_MASK: "Strength 1.0 without a mask replaces the whole image (like "
    "text-to-image).",
    NoteCode.STRENGTH_STEPS: "Strength {strength:g} runs {run} of {steps} steps.",
    NoteCode.EMPTY_MASK: "The mask is empty (no white pixel): there is nothing to repaint; "
    "the run would return the picture unchanged. Paint the area to change in --mask.",
    NoteCode.FLAG_NO_EFFECT: "{flag} {value} does nothing for klein; ignored.",
    NoteCode.FLAG_NOT_NEEDED: "{flag} {value}: each Stepwise stage loads only its own model, "
    "so this is not needed; ignored.",
    NoteCode.FLAG_UNKNOWN: "{flag} {value}: not known to Stepwise; ignored.",
    NoteCode.FLAG_MAPPED: "{flag} {value}: Stepwise runs each stage in its own process; set "
    "as {target}.",
    NoteCode.SDCLI_DEFAULT_CFG: "No --cfg-scale: sd-cli's default is {cfg:g}, which runs the "
    "diffusion model twice per step; Stepwise uses {klein:g}, klein's distilled setting.",
    NoteCode.SDCLI_DEFAULT_SCHEDULER: "No --scheduler: sd-cli's default is '{scheduler}', "
    "which wastes the last step with klein; Stepwise uses '{klein}'.",
    NoteCode.LORA_MISSING: "The prompt names the LoRA '{name}', but {folder} has no such "
    "file; it will not load.",
    NoteCode.FLAG_NO_VALUE: "{flag} has no value; ignored.",
    NoteCode.FLAG_BAD_NUMBER: "{flag} {value}: not a number; ignored.",
    NoteCode.STRAY_WORD: "Stray word '{word}' ignored.",
    NoteCode.SEED_RANDOM: "--seed {value}: a seed is drawn once and recorded in the run, so "
    "it can be reproduced.",
    NoteCode.OUTPUT_IN_RUN_FOLDER: "--output {value}: Stepwise writes result.png into the run "
    "folder; `run -o` copies it out.",
    NoteCode.SINGLE_MODEL_FILE: "--model {value}: klein needs separate --diffusion-model, "
    "--llm and --vae files; a single full model is not supported.",
    NoteCode.MODEL_NOT_GIVEN: "No {flag}: choose the file in Settings or pass the flag.",
    NoteCode.SIZE_FROM_IMAGE: "-W/-H: with an input image the size comes from the prepared "
    "image (aligned to 16 px).",
    NoteCode.LORA_NO_FOLDER: "The prompt names LoRAs but there is no --lora-model-dir; they "
    "will not load.",
    NoteCode.LORA_FOLDER_UNUSED: "--lora-model-dir: no <lora:name:weight> tag in the prompt, "
    "so no LoRA is applied.",
    NoteCode.LORA_FROM_TAGS: "LoRAs come from the prompt's tags ({loras}); a change of LoRA "
    "encodes the prompt again.",
}


def failure_text(kind: FailureKind) -> str:
    """The kind in English; a command it names is written as the user starts Stepwise."""
    return FAILURE_TEXTS[kind].replace("{selftest}", typed("selftest"))


def note_text(note: Note) -> str:
    """The note in English; a parameter the text does not use is ignored."""
    try:
        text = NOTE_TEXTS[note.code].format(**note.params)
    except (KeyError, ValueError):  # a parameter missing or of another kind: still say it
        return f"{NOTE_TEXTS[note.code]} ({note.params})"
    return re.sub(r" +([:;,.])", r"\1", text)  # an empty {value}


def error_line(error: StepwiseError) -> str:
    """The one line the CLI stops on (stderr)."""
    return f"error: {error.user_message()}"


def error_json(error: StepwiseError) -> dict[str, object]:
    """An error as data for `--json` readers: its kind, English text, template and values."""
    failure = failure_for(error, "")
    return {
        "kind": str(failure.kind),
        "message": failure.detail,
        "template": failure.message,
        "values": dict(failure.values),
        "fix": failure.fix,
    }
