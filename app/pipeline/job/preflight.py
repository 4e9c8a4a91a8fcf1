"""Up-front validation of a job before any stage runs (the GUI and the CLI share it).

Every parameter is checked against its row in app/pipeline/job/params.py (the one owner of the
limits), the sampler and scheduler against the engine's catalog when there is one, the model
files for being readable files of a kind the engine loads (by their first bytes), the run
folder for being a writable folder, the disk for room for the run's expected size, and the
devices against those the engine lists now. A failure is an InputError / ModelFileError
(FailureKind INPUT / MODEL_FILE), a DeviceMissingError (DEVICE) or an OutputError (OUTPUT)
whose message names the field or folder and the fix; never a traceback. Messages are
templates (app/core/errors.py) so the UI shows them in its language. `mask_is_empty` is the
"nothing to repaint" warning's test (advice.py turns it into NoteCode.EMPTY_MASK).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from app.core.errors import DiskFullError, InputError, OutputError, StepwiseError
from app.engine.errors import DeviceError
from app.engine.model_kind import model_kind
from app.imaging.io import load_mask
from app.imaging.mask_ops import BINARY_THRESHOLD
from app.pipeline.job import params as P
from app.pipeline.job.catalog import EngineCatalog
from app.pipeline.job.frame_checks import (  # noqa: F401 - re-exported: the frame checks
    check_frame_fits,
    check_frame_values,
    expands,
)
from app.pipeline.job.identity import ModelFileError
from app.pipeline.job.naming import KIND_NAMES, MODEL_KINDS, named
from app.pipeline.job.output_file import check_output_file as check_output_file
from app.pipeline.job.presets import unfilled_slot
from app.pipeline.job.run_space import NO_ROOM_MESSAGE, expected_run_bytes
from app.pipeline.job.spec import JobSpec, values_from_spec
from app.pipeline.job.unused_values import check_unused_values

GGUF_MAGIC = b"GGUF"
ZIP_MAGIC = b"PK\x03\x04"  # a PyTorch .ckpt/.pt
MAX_SAFETENSORS_HEADER = 100 * 1024 * 1024
MODEL_ROWS = (P.DIFFUSION_MODEL, P.LLM_MODEL, P.VAE_MODEL)
DEVICE_ROWS = (P.LLM_DEVICE, P.DIFFUSION_DEVICE, P.VAE_DEVICE)
# The engine's limits (native/src/sd_stage.hpp MAX_REF_LATENTS, checks.cpp MAX_PROMPT_TOKENS
# and MAX_PROMPT_BYTES); the engine checks them again, this only says so before any stage.
MAX_REFERENCE_IMAGES = 16
TOO_MANY_WITH_PHOTO_MESSAGE = (
    "The job has {count} reference images: the photo (--source-ref) and the --ref-image "
    "pictures; the engine takes at most {maximum}."
)
TOO_MANY_WITH_PHOTO_FIX = "Remove {extra} of the --ref-image pictures, or leave --source-ref out."
MAX_PROMPT_TOKENS = 512
MAX_PROMPT_BYTES = 64 * 1024
TEMPLATE_TOKENS = 8  # "<|im_start|>user\n … <|im_end|>\n<|im_start|>assistant\n<think>…": ≥ 8
_LETTER_RUNS = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"\d")
KIND_FLAGS = {
    "diffusion": "--diffusion-model",
    "llm": "--llm",
    "vae": "--vae",
}


class DeviceMissingError(DeviceError):
    """A stage's device is not one the engine lists (unplugged, driver gone, another PC)."""

    def __init__(self, message: str, *, fix: str, values: Mapping[str, object]) -> None:
        super().__init__(message, fix=fix)
        _set_values(self, values)


LORA_TAG = re.compile(r"<lora:([^:>]+):[^>]*>")  # sd.cpp's LoRA tag in a prompt


def _set_values(exc: StepwiseError, values: Mapping[str, object]) -> None:
    # EngineError takes no values= (yet): the template's values are set after construction.
    exc.values = dict(values)
    exc.args = (exc.user_message(),)


def check_job(
    spec: JobSpec, catalog: EngineCatalog | None = None, devices: Iterable[str] | None = None
) -> None:
    """Every parameter, sampler/scheduler (against `catalog` when given), the devices
    (against the engine's names, `devices`, when given) and model file."""
    check_values(spec)
    check_prompt_slots(spec)
    check_engine_limits(spec)
    check_frame_values(spec)
    check_unused_values(spec)
    if catalog is not None:
        check_catalog(spec, catalog)
    if devices is not None:
        check_devices(spec, devices)
    check_models(spec)


def check_prompt_slots(spec: JobSpec) -> None:
    """A preset's `[slot]` left in the prompt (presets.py): the text encoder would read the
    placeholder's words, so the job stops until the user writes what to paint."""
    found = unfilled_slot(spec.prompt)
    if found is not None:
        raise InputError(
            "The prompt still holds {slot} from the edit preset.",
            fix="Replace {slot} with a few words for what to paint.",
            values={"slot": found},
        )


def check_engine_limits(spec: JobSpec) -> None:
    """The engine's own limits, before any stage: how many reference images it takes and how
    long a prompt its text encoder takes (a lower bound on the tokens: the exact count needs
    the engine's tokenizer, which refuses in llm-encode what this lets through)."""
    count = spec.reference_count  # the photo is one when it is the source reference
    if count > MAX_REFERENCE_IMAGES:
        values = {"count": count, "maximum": MAX_REFERENCE_IMAGES}
        values["extra"] = count - MAX_REFERENCE_IMAGES
        if spec.uses_source_ref:  # issue 29, defect 3: the fix said to remove the photo's count
            raise InputError(
                TOO_MANY_WITH_PHOTO_MESSAGE, fix=TOO_MANY_WITH_PHOTO_FIX, values=values
            )
        raise InputError(
            "The job has {count} reference images (--ref-image); the engine takes at most "
            "{maximum}.",
            fix="Remove {extra} of them.",
            values=values,
        )
    texts = [(P.PROMPT, spec.prompt)]
    if spec.guided:  # the negative prompt is encoded only then
        texts.append((P.NEGATIVE_PROMPT, spec.negative_prompt))
    for p, text in texts:
        at_least = prompt_tokens_at_least(text)
        if at_least > MAX_PROMPT_TOKENS or len(text.encode("utf-8", "replace")) > MAX_PROMPT_BYTES:
            raise InputError(
                "{name} is too long: at least {tokens} tokens with the text encoder's "
                "template; it takes at most {maximum}.",
                fix="Shorten it (about {words} English words fit).",
                values={
                    **named(p),
                    "tokens": at_least,
                    "maximum": MAX_PROMPT_TOKENS,
                    "words": MAX_PROMPT_TOKENS * 3 // 4 - 30,
                },
            )


def prompt_tokens_at_least(text: str) -> int:
    """A lower bound on the Qwen3 tokens of `text` in the engine's template: its tokenizer
    splits text before merging (each run of letters and each digit is a piece of its own, so
    at least one token each), plus the template's own tokens."""
    return len(_LETTER_RUNS.findall(text)) + len(_DIGITS.findall(text)) + TEMPLATE_TOKENS


def check_values(spec: JobSpec) -> None:
    """Each value against its row's kind, choices and range (params.py owns the limits)."""
    values = values_from_spec(spec)
    for p in P.PARAMS:
        if isinstance(values[p.name], str):
            check_text(named(p), values[p.name])
    for name, flag, path in _input_paths(spec):
        check_text({"name": f"{name} ({flag})", "flag": flag}, path)
    for p in P.PARAMS:
        if p in MODEL_ROWS or p is P.LORA_DIR:
            continue  # paths: check_models
        value = values[p.name]
        ok, _ = P.check_value(p, value)
        if ok:
            continue
        ranged = p.minimum is not None or p.maximum is not None
        raise InputError(
            "{name} cannot be {value}.",
            fix=(
                "Choose one of: {allowed}."
                if p.choices is not None
                else "Use a value from {minimum} to {maximum}."
                if ranged
                else "Use a {kind} value."
            ),
            values={
                **named(p),
                "value": repr(value),
                "allowed": ", ".join(str(c) for c in p.choices or ()),
                "minimum": _num(p.minimum),
                "maximum": _num(p.maximum),
                "kind": p.kind.__name__,
            },
        )


def _input_paths(spec: JobSpec) -> list[tuple[str, str, str]]:
    found = [("image", "--init-img", spec.image), ("mask", "--mask", spec.mask)]
    found += [("reference image", "--ref-image", ref) for ref in spec.refs]
    return [(name, flag, path) for name, flag, path in found if isinstance(path, str)]


def check_text(what: Mapping[str, str], text: str) -> None:
    """`text` is clean text: no NUL, no lone surrogate (invalid UTF-8 on a command line).
    The message shows the character escaped, never the text itself (it would not print).
    `what` names the value (`named(p)` for a parameter)."""
    at = P.unclean_char(text)
    if at is None:
        return
    raise InputError(
        "{name} holds a character that is not text at position {position}: {character}.",
        fix="Type or paste it again as plain text (UTF-8, no control characters).",
        values={**what, "position": at + 1, "character": ascii(text[at])},
    )


def _num(x: float | None) -> str:
    if x is None:
        return "any"
    return str(int(x)) if float(x).is_integer() else str(x)


def check_catalog(spec: JobSpec, catalog: EngineCatalog) -> None:
    """The sampler and scheduler are ones the engine offers."""
    samplers = tuple(s.name for s in catalog.samplers)
    if samplers and spec.sampler not in samplers:
        raise InputError(
            "{name} {value} is not one the engine offers.",
            fix="Choose one of: {allowed}.",
            values={
                **named(P.SAMPLER),
                "value": repr(spec.sampler),
                "allowed": ", ".join(samplers),
            },
        )
    if catalog.schedulers and spec.scheduler not in catalog.schedulers:
        raise InputError(
            "{name} {value} is not one the engine offers.",
            fix="Choose one of: {allowed}.",
            values={
                **named(P.SCHEDULER),
                "value": repr(spec.scheduler),
                "allowed": ", ".join(catalog.schedulers),
            },
        )


def check_devices(spec: JobSpec, devices: Iterable[str]) -> None:
    """Each stage's device is one the engine lists now (`devices`: their names, "cpu" …)."""
    listed = list(devices)
    values = values_from_spec(spec)
    for p in DEVICE_ROWS:
        device = str(values[p.name])
        if device in listed:
            continue
        raise DeviceMissingError(
            "The device {device} chosen for {name} is not one the engine finds now "
            "(it finds: {listed}).",
            fix="Choose one of them under Devices in the Generate tab, or with {flag} "
            "(cpu always works); if it is a GPU, check that it and its driver are there.",
            values={
                "device": device,
                **named(p),
                "listed": ", ".join(listed) or "—",
            },
        )


def mask_is_empty(path: Path | str) -> bool:
    """The mask file has no pixel the engine would repaint ("nothing to repaint"); False when
    it cannot be read (the mask's own check reports that)."""
    try:
        mask = load_mask(path)
    except (StepwiseError, OSError, ValueError, MemoryError):
        return False
    return not bool(np.any(mask >= BINARY_THRESHOLD))


def check_models(spec: JobSpec) -> None:
    """Each model is given, a readable file, and GGUF, safetensors or a .ckpt (zip) by its
    first bytes; the LoRA folder, when given, is a folder."""
    values = values_from_spec(spec)
    for p in MODEL_ROWS:
        check_model_file(p, str(values[p.name]))
    lora_dir = spec.models.lora_dir
    named_lora = LORA_TAG.search(spec.prompt)
    if named_lora is not None and not lora_dir:  # the engine would ignore it, saying nothing
        raise InputError(
            "The prompt names the LoRA {lora}, but no LoRA folder is given.",
            fix="Give the folder that holds it with {flag}, or take the tag out of the prompt.",
            values={"lora": named_lora.group(1), **named(P.LORA_DIR)},
        )
    if lora_dir and not Path(lora_dir).is_dir():
        raise InputError(
            "{name}: {path} is not a folder.",
            path=lora_dir,
            fix="Name the folder that holds the LoRA files, or leave it empty.",
            values=named(P.LORA_DIR),
        )


def check_model_file(p: P.Param, path: str) -> None:
    what = named(p)
    if not path:
        raise ModelFileError("No {name} is given.", fix="Name the file with {flag}.", values=what)
    file = Path(path)
    if not file.exists():
        raise ModelFileError(
            "The {name} {path} does not exist.",
            path=path,
            fix="Check the path.",
            values=what,
        )
    if not file.is_file():
        raise ModelFileError(
            "The {name} {path} is not a file.",
            path=path,
            fix="Name the model file itself.",
            values=what,
        )
    try:
        looks_right = model_header_ok(file)
    except OSError as exc:
        raise ModelFileError(
            "The {name} {path} cannot be read: {reason}.",
            path=path,
            fix="Check its permissions.",
            values={**what, "reason": exc.strerror or exc},
        ) from exc
    if not looks_right:
        raise ModelFileError(
            "The {name} {path} is not a GGUF or safetensors model.",
            path=path,
            fix="Choose the model file (.gguf or .safetensors); this one is truncated or other.",
            values=what,
        )
    wanted = MODEL_KINDS.get(p.name)
    found = model_kind(file) if wanted else None
    if wanted and found and found != wanted:
        raise ModelFileError(
            "The {name} {path} holds a {found}, not a {wanted}.",
            path=path,
            fix="Give that file with {found_flag} and name the {wanted} with {flag}.",
            values={
                **what,
                "found": KIND_NAMES[found],
                "wanted": KIND_NAMES[wanted],
                "found_kind": found,  # the GUI names the kinds in its own words
                "wanted_kind": wanted,
                "found_flag": KIND_FLAGS[found],
            },
        )


def model_file_kind(path: Path | str) -> str | None:
    """ "diffusion", "llm" or "vae" by the tensors `path` holds; None when not known (the one
    reading of a model's kind above the engine: the model fields use it)."""
    return model_kind(path)


def model_header_ok(path: Path) -> bool:
    """The file starts like a model: GGUF magic, a zip (.ckpt), or a safetensors header (a
    sane length, then a JSON object that parses). The one check the GUI's model fields and
    the preflight share. Raises OSError when the file cannot be read."""
    with open(path, "rb") as f:
        head = f.read(9)
        if not model_magic_ok(head):
            return False
        if head.startswith(GGUF_MAGIC) or head.startswith(ZIP_MAGIC):
            return True
        (size,) = struct.unpack("<Q", head[:8])
        f.seek(8)
        try:
            json.loads(f.read(size))
        except (ValueError, UnicodeDecodeError):
            return False
    return True


def model_magic_ok(head: bytes) -> bool:
    """The first 9 bytes of a file are those of a GGUF, safetensors or zip (.ckpt) model
    (public: the GUI's model check can share it)."""
    if head.startswith(GGUF_MAGIC) or head.startswith(ZIP_MAGIC):
        return True
    if len(head) == 9:  # safetensors: u64 little-endian header length, then a JSON object
        (size,) = struct.unpack("<Q", head[:8])
        return 2 <= size <= MAX_SAFETENSORS_HEADER and head[8:9] == b"{"
    return False


def check_run_folder(folder: Path, spec: JobSpec | None = None) -> None:
    """`folder` is (or can become) a writable folder with room for the run (OutputError)."""
    folder = Path(folder)
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        raise OutputError(
            "The run folder {path} cannot be made: {existing} is a file, not a folder.",
            path=folder,
            fix="Choose a run folder (--run-dir) that is not under a file.",
            values={"existing": existing},
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(
            "The run folder {path} cannot be written: {existing} is read-only.",
            path=folder,
            fix="Choose a writable run folder (--run-dir).",
            values={"existing": existing},
        )
    if spec is None:
        return
    try:
        free = shutil.disk_usage(existing).free
    except OSError:
        return  # the write itself reports it
    need = expected_run_bytes(spec)
    if free < need:
        raise DiskFullError(
            NO_ROOM_MESSAGE,
            path=folder,
            fix="Free some space or choose a run folder on another disk (--run-dir).",
            values={"free_mb": free // 2**20, "need_mb": need // 2**20},
        )
