"""Turns an sd-cli command line (as users keep them in .bat / .sh files) into a job.

`import_sd_cli(text)` returns the parameter values the command sets (by Param.name; the
flags each parameter answers to are the table's `sdcli_flags`), its input files and notes as
codes (failures.Note): one for each flag that Stepwise maps differently, ignores, or that
sd-cli defaults differently. Klein advice on the result is advice.job_notes(result.spec(), ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from app.pipeline.failures import Note, NoteCode
from app.pipeline.job.loras import LORA_TAG
from app.pipeline.job.params import (
    CFG_SCALE,
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    FLASH_ATTENTION,
    HEIGHT,
    KLEIN_CFG_SCALE,
    KLEIN_SCHEDULER,
    LLM_DEVICE,
    LLM_MODEL,
    LORA_DIR,
    MASK_MODE,
    PARAMS,
    SCHEDULER,
    SEED,
    VAE_DEVICE,
    VAE_MODEL,
    WIDTH,
    Param,
    default_values,
)
from app.pipeline.job.spec import JobSpec, spec_from_values, spec_to_dict

SD_CLI_DEFAULT_CFG = 7.0
SD_CLI_DEFAULT_SCHEDULER = "discrete"

# The table's sd-cli spellings: flag -> parameter (a bool parameter's flag is a switch).
SDCLI_FLAGS: dict[str, Param] = {flag: p for p in PARAMS for flag in p.sdcli_flags}
# Input files are not parameters (they are the job's, not the form's).
_INPUT_FLAGS = {
    "-i": "image",
    "--init-img": "image",
    "--mask": "mask",
    "-r": "refs",
    "--ref-image": "refs",
}
# sd-cli's per-module CPU switches: each maps onto a device parameter.
_CPU_SWITCHES = {"--clip-on-cpu": LLM_DEVICE, "--vae-on-cpu": VAE_DEVICE}
# Flags with a value that one model per stage makes unneeded, or that do nothing for klein.
_NOT_NEEDED = ("--params-backend", "--max-vram")
_NO_EFFECT = ("--guidance",)
_NO_VALUE_IGNORED = {
    "-v",
    "--verbose",
    "--color",
    "--offload-to-cpu",
    "--diffusion-conv-direct",
    "--vae-conv-direct",
    "--force-sdxl-vae-conv-scale",
}
_BACKEND_ROLES = {
    "te": LLM_DEVICE,
    "llm": LLM_DEVICE,
    "clip": LLM_DEVICE,
    "text": LLM_DEVICE,
    "cond": LLM_DEVICE,
    "diffusion": DIFFUSION_DEVICE,
    "dit": DIFFUSION_DEVICE,
    "unet": DIFFUSION_DEVICE,
    "vae": VAE_DEVICE,
}
_DEVICES = (LLM_DEVICE, DIFFUSION_DEVICE, VAE_DEVICE)
_MODELS = (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL)
_IMAGE_MODES = ("img_gen", "txt2img", "img2img")
# The sd-cli flags `stepwise run` accepts beside the table's (flag, takes a value): their
# meaning is import_words'.
RUN_COMPAT_FLAGS: tuple[tuple[str, bool], ...] = (
    ("--backend", True),
    ("--clip-on-cpu", False),
    ("--vae-on-cpu", False),
    *((flag, True) for flag in (*_NOT_NEEDED, *_NO_EFFECT)),
)


@dataclass
class SdCliImport:
    """What an sd-cli command describes: every parameter's value (the table's default where
    the command says nothing), which ones it gave, its input files and the notes."""

    values: dict[str, Any] = field(default_factory=default_values)
    given: set[str] = field(default_factory=set)
    image: str | None = None
    mask: str | None = None
    refs: list[str] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def spec(self) -> JobSpec:
        return spec_from_values(
            self.values, image=self.image, mask=self.mask, refs=tuple(self.refs)
        )

    def note(self, code: NoteCode, **params: str | int | float) -> None:
        self.notes.append(Note(code, dict(params)))


def split_command(text: str) -> list[str]:
    """Splits a cmd.exe / PowerShell / POSIX shell command into words.

    Line continuations (^, `, \\ at a line end) are joined; double and single quotes group;
    backslashes are literal (Windows paths) except before a quote inside quotes.
    """
    text = re.sub(r"[ \t]*(\^|`|\\)[ \t]*\r?\n", " ", text)
    words: list[str] = []
    cur: list[str] = []
    in_word = False
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text) and text[i + 1] == quote:
                cur.append(quote)
                i += 2
                continue
            if ch == quote:
                quote = ""
            else:
                cur.append(ch)
        elif ch in "\"'":
            quote = ch
            in_word = True
        elif ch.isspace():
            if in_word:
                words.append("".join(cur))
                cur, in_word = [], False
        elif ch == "^" and i + 1 < len(text):  # cmd.exe escape: ^x -> x
            cur.append(text[i + 1])
            in_word = True
            i += 1
        else:
            cur.append(ch)
            in_word = True
        i += 1
    if in_word:
        words.append("".join(cur))
    return words


def import_sd_cli(text: str) -> SdCliImport:
    """The job an sd-cli command describes (the first word is the program unless it is a
    flag), with notes on what Stepwise does differently."""
    words = split_command(text)
    if words and not words[0].startswith("-"):
        words = words[1:]  # the program (sd-cli.exe, ./sd, ...)
    result = import_words(words)
    # sd-cli's mask is hard (no --mask-mode): an imported command keeps that.
    result.values[MASK_MODE.name] = "hard"
    _defaults_notes(result)
    _lora_notes(result)
    return result


def import_words(words: list[str]) -> SdCliImport:  # noqa: C901 - one branch per sd-cli flag
    """sd-cli flags (no program word) onto parameters; notes only for the flags themselves.
    `stepwise run` hands its sd-cli compatibility flags (--backend, --guidance, ...) here."""
    result = SdCliImport()
    # sd-cli runs without flash attention unless asked: an imported command keeps that.
    result.values[FLASH_ATTENTION.name] = False
    i = 0
    while i < len(words):
        word = words[i]
        flag, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        value: str | None = inline if eq else None
        p = SDCLI_FLAGS.get(flag)
        if p is not None and p.kind is bool:
            _set(result, p, True)
        elif p is not None:
            raw, i = _take(words, i, value, flag, result)
            if raw is not None:
                _assign(result, p, raw, flag)
        elif flag in _INPUT_FLAGS:
            raw, i = _take(words, i, value, flag, result)
            if raw is not None:
                _input(result, _INPUT_FLAGS[flag], raw)
        elif flag in _CPU_SWITCHES:
            _set(result, _CPU_SWITCHES[flag], "cpu")
            result.note(
                NoteCode.FLAG_MAPPED, flag=flag, value="cpu", target=_CPU_SWITCHES[flag].name
            )
        elif flag == "--backend":
            raw, i = _take(words, i, value, flag, result)
            if raw is not None:
                _backend(result, raw)
        elif flag in _NOT_NEEDED or flag in _NO_EFFECT:
            raw, i = _take(words, i, value, flag, result)
            code = NoteCode.FLAG_NOT_NEEDED if flag in _NOT_NEEDED else NoteCode.FLAG_NO_EFFECT
            result.note(code, flag=flag, value=raw or "")
        elif flag in ("-o", "--output"):
            raw, i = _take(words, i, value, flag, result)
            result.note(NoteCode.OUTPUT_IN_RUN_FOLDER, value=raw or "")
        elif flag in ("-m", "--model"):
            raw, i = _take(words, i, value, flag, result)
            result.note(NoteCode.SINGLE_MODEL_FILE, value=raw or "")
        elif flag in ("-M", "--mode"):
            raw, i = _take(words, i, value, flag, result)
            if raw is not None and raw not in _IMAGE_MODES:
                result.note(NoteCode.FLAG_NO_EFFECT, flag="--mode", value=raw)
        elif flag in _NO_VALUE_IGNORED:
            result.note(NoteCode.FLAG_NOT_NEEDED, flag=flag, value="")
        elif flag.startswith("-"):
            if i + 1 < len(words) and not words[i + 1].startswith("-") and not eq:
                i += 1
                result.note(NoteCode.FLAG_UNKNOWN, flag=flag, value=words[i])
            else:
                result.note(NoteCode.FLAG_UNKNOWN, flag=flag, value=inline)
        else:
            result.note(NoteCode.STRAY_WORD, word=word)
        i += 1
    return result


def import_sd_cli_command(text: str) -> tuple[dict[str, Any], list[str]]:
    """Deprecated (the GUI's old import dialog): the job as a spec_to_dict-shaped dict and
    the notes as "code: name=value, ..." lines. Use import_sd_cli and the UI's texts."""
    result = import_sd_cli(text)
    lines = [
        f"{n.code}: " + ", ".join(f"{k}={v}" for k, v in n.params.items()) for n in result.notes
    ]
    return spec_to_dict(result.spec()), lines


_SQUARE = re.compile(r"(\d+)[xX](\d+)")


def _take(
    words: list[str], i: int, inline: str | None, flag: str, result: SdCliImport
) -> tuple[str | None, int]:
    """The flag's value (inline after = or the next word) and the index of the last word used."""
    if inline is not None:
        return inline, i
    if i + 1 < len(words):
        return words[i + 1], i + 1
    result.note(NoteCode.FLAG_NO_VALUE, flag=flag)
    return None, i


def _assign(result: SdCliImport, p: Param, raw: str, flag: str) -> None:
    value: Any
    square = _SQUARE.fullmatch(raw)
    if p.kind is int and square and square[1] == square[2]:
        raw = square[1]  # sd-cli's "32x32" for a square size (--vae-tile-size)
    try:
        value = p.kind(raw) if p.kind in (int, float) else raw
    except ValueError:
        result.note(NoteCode.FLAG_BAD_NUMBER, flag=flag, value=raw)
        return
    if p is SEED and value < 0:
        value = -1  # sd-cli's "draw one": the pipeline draws it once and records it
        result.note(NoteCode.SEED_RANDOM, value=value)
    _set(result, p, value)


def _set(result: SdCliImport, p: Param, value: Any) -> None:
    result.values[p.name] = value
    result.given.add(p.name)


def _input(result: SdCliImport, role: str, path: str) -> None:
    if role == "refs":
        result.refs.append(path)
    elif role == "image":
        result.image = path
    else:
        result.mask = path


def _backend(result: SdCliImport, raw: str) -> None:
    for part in raw.split(","):
        role, eq, device = part.partition("=")
        if not eq:  # a bare device applies to every stage
            for p in _DEVICES:
                _set(result, p, part.strip().lower())
            result.note(
                NoteCode.FLAG_MAPPED,
                flag="--backend",
                value=part.strip(),
                target=",".join(p.name for p in _DEVICES),
            )
            continue
        target = _BACKEND_ROLES.get(role.strip().lower())
        if target is None:
            result.note(NoteCode.FLAG_UNKNOWN, flag="--backend", value=part)
            continue
        _set(result, target, device.strip().lower())
        result.note(NoteCode.FLAG_MAPPED, flag="--backend", value=part.strip(), target=target.name)


def _defaults_notes(result: SdCliImport) -> None:
    if CFG_SCALE.name not in result.given:
        result.note(NoteCode.SDCLI_DEFAULT_CFG, cfg=SD_CLI_DEFAULT_CFG, klein=KLEIN_CFG_SCALE)
    if SCHEDULER.name not in result.given:
        result.note(
            NoteCode.SDCLI_DEFAULT_SCHEDULER,
            scheduler=SD_CLI_DEFAULT_SCHEDULER,
            klein=KLEIN_SCHEDULER,
        )
    if result.image is not None and {WIDTH.name, HEIGHT.name} & result.given:
        result.note(NoteCode.SIZE_FROM_IMAGE)
    for p in _MODELS:
        if not result.values[p.name]:
            result.note(NoteCode.MODEL_NOT_GIVEN, flag=p.flags[0])


def _lora_notes(result: SdCliImport) -> None:
    tags = LORA_TAG.findall(result.values["prompt"])
    lora_dir = result.values[LORA_DIR.name]
    if tags and not lora_dir:
        result.note(NoteCode.LORA_NO_FOLDER)
    elif lora_dir and not tags:
        result.note(NoteCode.LORA_FOLDER_UNUSED)
    elif lora_dir:
        result.note(
            NoteCode.LORA_FROM_TAGS, loras=", ".join(f"{n} at {w.strip()}" for n, w in tags)
        )
