"""Typed failures and notes: what went wrong (or what to know) as a code with parameters.

The pipeline never writes user text for these: the UI owns code → tr() text (English and
简体中文, app/ui/words/texts.py), the CLI the English text (app/cli/texts.py). `detail` is the
engine's or the OS's own one-line message (it names the file or flag), shown as is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from app.core.errors import fill_template, render_error

Translate = Callable[[str], str]


class FailureKind(StrEnum):
    """Why a run stopped with RunFailed."""

    OUT_OF_MEMORY = "out_of_memory"  # an allocation failed on the host or the device
    BAD_DECODE = "bad_decode"  # the decode gave no picture (one colour, NaN/Inf latent)
    MODEL_FILE = "model_file"  # a model is missing, unreadable or of the wrong kind
    INPUT = "input"  # an image, mask, reference or parameter is wrong
    DAMAGED = "damaged"  # a file Stepwise wrote earlier fails verification
    OUTPUT = "output"  # an output could not be written (unwritable folder, write error)
    NO_ROOM = "no_room"  # the disk is full (a queued job is not at fault: it waits for room)
    ENGINE_MISSING = "engine_missing"  # no sd-stage binary
    ENGINE_CRASHED = "engine_crashed"  # the engine died (signal, internal error)
    ENGINE_HUNG = "engine_hung"  # the engine sent nothing for too long: the watchdog ended it
    DEVICE = "device"  # the chosen device is not there or was lost
    BUSY = "busy"  # another process works on this run
    ORDER = "order"  # "run next stage" asked for a stage whose inputs are not ready
    BUG = "bug"  # an unexpected exception in Stepwise itself (logged with its trace)


def json_values(values: Mapping[str, object]) -> dict[str, str | int | float | bool]:
    """Template values as run.json and a signal can carry them (numbers stay numbers, so a
    `{x:.1f}` still formats; anything else becomes its text)."""
    out: dict[str, str | int | float | bool] = {}
    for name, value in values.items():
        out[str(name)] = value if isinstance(value, str | int | float | bool) else str(value)
    return out


@dataclass(frozen=True)
class Failure:
    """A typed failure: kind, the stage it happened in, the English detail, the engine log,
    and the error's message and fix templates with their values (empty for a failure that
    came from no template: an old run.json)."""

    kind: FailureKind
    stage: str
    detail: str
    log_path: Path | None = None
    message: str = ""
    values: Mapping[str, str | int | float | bool] = field(default_factory=dict)
    fix: str = ""

    def text(self, translate: Translate | None = None) -> str:
        """What went wrong (without the fix), in the language `translate` gives."""
        if not self.message:
            return self.detail
        return render_error(self.message, self.values, translate)

    def fix_text(self, translate: Translate | None = None) -> str:
        """What to do about it ("" when the error named no fix)."""
        return fill_template(self.fix, self.values, translate) if self.fix else ""


class NoteCode(StrEnum):
    """Advice and warnings about a job (klein settings, sd-cli flags, prepare)."""

    CFG_NOT_ONE = "cfg_not_one"  # cfg: klein is distilled for 1; other values double the work
    NEGATIVE_UNUSED = "negative_unused"  # the negative prompt does nothing at cfg 1
    SCHEDULER_NOT_SIMPLE = "scheduler_not_simple"  # scheduler
    MANY_STEPS = "many_steps"  # steps
    SAMPLER_NOT_RESUMABLE = "sampler_not_resumable"  # sampler: a suspend/crash starts over
    SIZE_NOT_ALIGNED = "size_not_aligned"  # width, height, align: aligned first
    STRENGTH_NO_MASK = "strength_no_mask"  # strength 1 without a mask replaces everything
    STRENGTH_STEPS = "strength_steps"  # strength, run, steps: img2img runs fewer steps
    EMPTY_MASK = "empty_mask"  # the mask is empty: nothing to repaint
    # sd-cli import / CLI flags
    FLAG_NO_EFFECT = "flag_no_effect"  # flag, value: does nothing for klein (e.g. --guidance)
    FLAG_NOT_NEEDED = "flag_not_needed"  # flag, value: one model per stage makes it unneeded
    FLAG_UNKNOWN = "flag_unknown"  # flag: not understood, ignored
    FLAG_MAPPED = "flag_mapped"  # flag, value, target: mapped onto another setting
    SDCLI_DEFAULT_CFG = "sdcli_default_cfg"  # sd-cli's default cfg 7 would double the work
    SDCLI_DEFAULT_SCHEDULER = "sdcli_default_scheduler"  # sd-cli's default discrete schedule
    LORA_MISSING = "lora_missing"  # name, folder: a <lora:...> tag names no file
    # added by the sd-cli importer (app/pipeline/job/sdcli_import.py)
    FLAG_NO_VALUE = "flag_no_value"  # flag: the last word wants a value; ignored
    FLAG_BAD_NUMBER = "flag_bad_number"  # flag, value: not a number; ignored
    STRAY_WORD = "stray_word"  # word: not a flag nor a flag's value; ignored
    SEED_RANDOM = "seed_random"  # value: a seed is drawn once and recorded in the run
    OUTPUT_IN_RUN_FOLDER = "output_in_run_folder"  # value: result.png is in the run folder
    SINGLE_MODEL_FILE = "single_model_file"  # value: klein needs diffusion, llm and vae files
    MODEL_NOT_GIVEN = "model_not_given"  # flag: no such model in the command; choose in Settings
    SIZE_FROM_IMAGE = "size_from_image"  # -W/-H with an init image: its aligned size is used
    LORA_NO_FOLDER = "lora_no_folder"  # the prompt names LoRAs but no --lora-model-dir
    LORA_FOLDER_UNUSED = "lora_folder_unused"  # --lora-model-dir without <lora:...> tags
    LORA_FROM_TAGS = "lora_from_tags"  # loras ("name at weight, ..."): from the prompt's tags


@dataclass(frozen=True)
class Note:
    """One piece of advice: a code and its parameters (str/int/float values)."""

    code: NoteCode
    params: dict[str, str | int | float] = field(default_factory=dict)
