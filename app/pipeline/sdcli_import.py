"""Turns an sd-cli command line (as users keep them in .bat / .sh files) into a job.

`import_sd_cli_command(text)` returns a dict shaped like spec.spec_to_dict (JobSpec fields
only; spec_from_dict accepts it once the model paths are there) and notes in plain words: one
for each flag that Stepwise maps differently, ignores, or that wastes time with klein.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from app.pipeline.spec import (
    KLEIN_CFG_SCALE,
    KLEIN_SAMPLER,
    KLEIN_SCHEDULER,
    KLEIN_STEPS,
    DeviceChoice,
    JobSpec,
    ModelFiles,
    klein_warnings,
)

SD_CLI_DEFAULT_CFG = 7.0
SD_CLI_DEFAULT_SCHEDULER = "discrete"

# flag -> (JobSpec-ish field, kind); kinds: str, int, float, path, bool (no value)
_VALUE_FLAGS: dict[str, tuple[str, str]] = {
    "--diffusion-model": ("models.diffusion", "path"),
    "--llm": ("models.llm", "path"),
    "--vae": ("models.vae", "path"),
    "--lora-model-dir": ("models.lora_dir", "path"),
    "-p": ("prompt", "str"), "--prompt": ("prompt", "str"),
    "-n": ("negative_prompt", "str"), "--negative-prompt": ("negative_prompt", "str"),
    "-i": ("image", "path"), "--init-img": ("image", "path"),
    "--mask": ("mask", "path"),
    "-r": ("refs", "path"), "--ref-image": ("refs", "path"),
    "-W": ("width", "int"), "--width": ("width", "int"),
    "-H": ("height", "int"), "--height": ("height", "int"),
    "--steps": ("steps", "int"),
    "-s": ("seed", "int"), "--seed": ("seed", "int"),
    "--strength": ("strength", "float"),
    "--cfg-scale": ("cfg_scale", "float"),
    "--sampling-method": ("sampler", "str"),
    "--scheduler": ("scheduler", "str"),
    "--preview": ("preview", "str"),
    "-t": ("devices.threads", "int"), "--threads": ("devices.threads", "int"),
}
_SWITCHES = {
    "--diffusion-fa": ("devices.flash_attention", True),
    "--vae-tiling": ("devices.vae_tiling", True),
    "--mmap": ("devices.mmap", True),
    "--clip-on-cpu": ("devices.llm", "cpu"),
    "--vae-on-cpu": ("devices.vae", "cpu"),
}
_NO_VALUE_IGNORED = {"-v", "--verbose", "--color", "--offload-to-cpu", "--diffusion-conv-direct",
                     "--vae-conv-direct", "--force-sdxl-vae-conv-scale"}
_BACKEND_ROLES = {"te": "llm", "llm": "llm", "clip": "llm", "text": "llm", "cond": "llm",
                  "diffusion": "diffusion", "dit": "diffusion", "unet": "diffusion",
                  "vae": "vae"}


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


def import_sd_cli_command(text: str) -> tuple[dict[str, Any], list[str]]:
    """The job an sd-cli command describes, and notes on what Stepwise does differently."""
    words = split_command(text)
    notes: list[str] = []
    spec: dict[str, Any] = {
        "models": {"diffusion": "", "llm": "", "vae": "", "lora_dir": ""},
        "prompt": "", "negative_prompt": "", "image": None, "mask": None, "refs": [],
        "width": 512, "height": 512, "steps": KLEIN_STEPS, "seed": 42, "strength": 1.0,
        "cfg_scale": KLEIN_CFG_SCALE, "sampler": KLEIN_SAMPLER, "scheduler": KLEIN_SCHEDULER,
        "preview": "proj", "devices": dataclasses.asdict(DeviceChoice()), "prepare": None,
    }
    # sd-cli's own defaults differ; Stepwise takes klein's devices off the defaults too.
    spec["devices"]["flash_attention"] = False
    seen: set[str] = set()
    if words and not words[0].startswith("-"):
        words = words[1:]  # the program (sd-cli.exe, ./sd, ...)
    i = 0
    while i < len(words):
        word = words[i]
        flag, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        value: str | None = inline if eq else None

        if flag in _VALUE_FLAGS:
            field_name, kind = _VALUE_FLAGS[flag]
            raw, i = _take(words, i, value, flag, notes)
            if raw is not None:
                _assign(spec, field_name, kind, raw, flag, notes)
                seen.add(field_name)
        elif flag in _SWITCHES:
            field_name, switch_value = _SWITCHES[flag]
            _set(spec, field_name, switch_value)
            seen.add(field_name)
            if flag in ("--clip-on-cpu", "--vae-on-cpu"):
                notes.append(f"{flag}: Stepwise chooses a device per stage; set to the CPU.")
        elif flag == "--backend":
            raw, i = _take(words, i, value, flag, notes)
            if raw is not None:
                _backend(spec, raw, notes)
        elif flag == "--params-backend":
            raw, i = _take(words, i, value, flag, notes)
            notes.append(
                f"--params-backend {raw}: dropped. It keeps weights in system memory so that "
                "several models fit at once; Stepwise loads only one model per stage.")
        elif flag == "--max-vram":
            raw, i = _take(words, i, value, flag, notes)
            notes.append(
                f"--max-vram {raw}: dropped. It was needed while three models shared the GPU; "
                "each Stepwise stage loads only its own model, and splitting the graph to stay "
                "under the cap slows every step.")
        elif flag == "--guidance":
            raw, i = _take(words, i, value, flag, notes)
            notes.append(f"--guidance {raw}: does nothing for klein (it has no guidance input); "
                         "dropped.")
        elif flag in ("-o", "--output"):
            raw, i = _take(words, i, value, flag, notes)
            notes.append(f"--output {raw}: Stepwise writes result.png into the run folder; "
                         "export it from there.")
        elif flag in ("-m", "--model"):
            raw, i = _take(words, i, value, flag, notes)
            notes.append(f"--model {raw}: klein needs separate --diffusion-model, --llm and "
                         "--vae files; a single full model is not supported.")
        elif flag in ("-M", "--mode"):
            raw, i = _take(words, i, value, flag, notes)
            if raw not in (None, "img_gen", "txt2img", "img2img"):
                notes.append(f"--mode {raw}: only image generation is supported; ignored.")
        elif flag in _NO_VALUE_IGNORED:
            notes.append(f"{flag}: not needed in Stepwise; ignored.")
        elif flag.startswith("-"):
            if i + 1 < len(words) and not words[i + 1].startswith("-") and not eq:
                i += 1
                notes.append(f"{flag} {words[i]}: not known to Stepwise; ignored.")
            else:
                notes.append(f"{flag}: not known to Stepwise; ignored.")
        else:
            notes.append(f"Stray word {word!r} ignored.")
        i += 1

    _defaults_notes(spec, seen, notes)
    notes.extend(_lora_notes(spec))
    notes.extend(klein_warnings(_as_spec(spec)))
    return spec, notes


def _take(words: list[str], i: int, inline: str | None, flag: str,
          notes: list[str]) -> tuple[str | None, int]:
    """The flag's value (inline after = or the next word) and the index of the last word used."""
    if inline is not None:
        return inline, i
    if i + 1 < len(words):
        return words[i + 1], i + 1
    notes.append(f"{flag} has no value; ignored.")
    return None, i


def _assign(spec: dict[str, Any], field_name: str, kind: str, raw: str, flag: str,
            notes: list[str]) -> None:
    try:
        if kind == "int":
            value: Any = int(raw)
        elif kind == "float":
            value = float(raw)
        else:
            value = raw
    except ValueError:
        notes.append(f"{flag} {raw}: not a number; ignored.")
        return
    if field_name == "refs":
        spec["refs"].append(value)
        return
    if field_name == "seed" and value < 0:
        notes.append(f"--seed {value}: sd-cli picks a random seed; Stepwise records the seed it "
                     "uses so the run can be reproduced (42 here, change it freely).")
        return
    _set(spec, field_name, value)


def _set(spec: dict[str, Any], dotted: str, value: Any) -> None:
    head, _, tail = dotted.partition(".")
    if tail:
        spec[head][tail] = value
    else:
        spec[head] = value


def _backend(spec: dict[str, Any], raw: str, notes: list[str]) -> None:
    mapped = []
    for part in raw.split(","):
        role, eq, device = part.partition("=")
        target = _BACKEND_ROLES.get(role.strip().lower())
        if not eq:
            # A bare device applies to every stage.
            for stage in ("llm", "diffusion", "vae"):
                spec["devices"][stage] = part.strip().lower()
            mapped.append(f"all stages {part.strip()}")
            continue
        if target is None:
            notes.append(f"--backend {part}: unknown module {role!r}; ignored.")
            continue
        spec["devices"][target] = device.strip().lower()
        mapped.append(f"{_ROLE_NAMES[target]} {device.strip()}")
    if mapped:
        notes.append("--backend: Stepwise runs each stage in its own process with its own "
                     "device: " + ", ".join(mapped) + ".")


_ROLE_NAMES = {"llm": "text encoder", "diffusion": "diffusion", "vae": "VAE"}


def _defaults_notes(spec: dict[str, Any], seen: set[str], notes: list[str]) -> None:
    if "cfg_scale" not in seen:
        notes.append(
            f"No --cfg-scale: sd-cli's default is {SD_CLI_DEFAULT_CFG:g}, which runs the diffusion "
            f"model twice per step and encodes the negative prompt; Stepwise uses "
            f"{KLEIN_CFG_SCALE:g}, klein's distilled setting (about half the diffusion time).")
    if "scheduler" not in seen:
        notes.append(
            f"No --scheduler: sd-cli's default is '{SD_CLI_DEFAULT_SCHEDULER}', which wastes the "
            f"last step with klein; Stepwise uses '{KLEIN_SCHEDULER}' (flux2-like schedule).")
    if "sampler" not in seen:
        notes.append(f"No --sampling-method: using '{KLEIN_SAMPLER}'.")
    if spec["image"] is not None and "width" in seen:
        notes.append("-W/-H: with an input image the size comes from the prepared image "
                     "(aligned to 16 px).")
    for role, flag in (("diffusion", "--diffusion-model"), ("llm", "--llm"), ("vae", "--vae")):
        if not spec["models"][role]:
            notes.append(f"No {flag}: choose the file in Settings.")


def _lora_notes(spec: dict[str, Any]) -> list[str]:
    tags = re.findall(r"<lora:([^:>]+):([^>]+)>", spec["prompt"])
    lora_dir = spec["models"]["lora_dir"]
    if tags and not lora_dir:
        return ["The prompt names LoRAs but there is no --lora-model-dir; they will not load."]
    if lora_dir and not tags:
        return ["--lora-model-dir: no <lora:name:weight> tag in the prompt, so no LoRA is "
                "applied; the folder is kept for later."]
    if lora_dir:
        listed = ", ".join(f"{n} at {w}" for n, w in tags)
        return [f"--lora-model-dir: LoRAs come from the prompt's tags ({listed}); a LoRA that "
                "changes the text encoder makes the prompt encode again, otherwise the cached "
                "prompt encoding is reused."]
    return []


def _as_spec(spec: dict[str, Any]) -> JobSpec:
    fields = dict(spec)
    fields["models"] = ModelFiles(**spec["models"])
    fields["devices"] = DeviceChoice(**spec["devices"])
    fields["refs"] = tuple(spec["refs"])
    return JobSpec(**fields)
