"""`run`'s flags, derived from the parameter table, and the values they give.

Every parameter of app.pipeline.job.params is a flag here with its table name, kind, choices,
help and default; nothing is restated. The models and devices a command line does not give
come from the settings (their `job` section, cleaned by params.clean_values), the rest from
the table. sd-cli compatibility flags (--backend, --guidance, ...) go to the sd-cli importer,
which owns what they mean.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any

from app.core.errors import InputError
from app.pipeline.failures import Note
from app.pipeline.job import params as P
from app.pipeline.job.naming import named
from app.pipeline.job.params import PARAMS, Param, check_value, clean_values, default_values
from app.pipeline.job.preflight import check_text
from app.pipeline.job.presets import SLOT, preset, slot, with_preset
from app.pipeline.job.sdcli_import import RUN_COMPAT_FLAGS, import_words

# Parameters a command line that does not give them takes from the settings (the files and
# devices chosen in the GUI); everything else is the table's default, so a command means the
# same on every machine.
FROM_SETTINGS = tuple(p for p in PARAMS if p.spec_field.startswith(("models.", "devices.")))
DEVICE_PARAMS = (P.LLM_DEVICE, P.DIFFUSION_DEVICE, P.VAE_DEVICE)
MODEL_PARAMS = (P.DIFFUSION_MODEL, P.LLM_MODEL, P.VAE_MODEL)
GROUPS = {
    "models": "models (default: the ones chosen in Settings)",
    "devices": "devices and engine switches (default: as in Settings)",
    "prepare": "prepare (what the painter's Prepare panel sets)",
}
COMPAT_HELP = {
    "--backend": "per-module devices, e.g. te=cpu,diffusion=vulkan1,vae=vulkan1",
    "--clip-on-cpu": "run the text encoder on the CPU",
    "--vae-on-cpu": "run the VAE on the CPU",
    "--guidance": "does nothing for klein",
    "--params-backend": "not needed: one model per stage",
    "--max-vram": "not needed: one model per stage",
}


METAVARS: dict[type, str] = {str: "TEXT", int: "N", float: "X"}


def dest(p: Param) -> str:
    return f"param_{p.name}"


def add_param_flags(parser: argparse.ArgumentParser) -> None:
    """One flag (with its aliases) per table row; unset flags stay out of the namespace."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    job = parser.add_argument_group("job")
    for p in PARAMS:
        head = p.spec_field.partition(".")[0]
        group = groups.get(head) or job
        if head in GROUPS and head not in groups:
            group = groups[head] = parser.add_argument_group(GROUPS[head])
        kwargs: dict[str, Any] = {"dest": dest(p), "default": argparse.SUPPRESS, "help": _help(p)}
        if p.kind is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            kwargs["type"] = p.kind
            if p.choices is not None:
                kwargs["choices"] = p.choices
            if p.choices is None:
                kwargs["metavar"] = p.metavar or METAVARS[p.kind]
        group.add_argument(*p.flags, **kwargs)


def add_compat_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("accepted from sd-cli command lines")
    for flag, takes_value in RUN_COMPAT_FLAGS:
        if takes_value:
            group.add_argument(flag, default=None, metavar="X", help=COMPAT_HELP[flag])
        else:
            group.add_argument(flag, action="store_true", help=COMPAT_HELP[flag])


def _help(p: Param) -> str:
    if p.default == "":
        return p.help.replace("%", "%%")
    default = "on" if p.default is True else "off" if p.default is False else p.default
    return f"{p.help} (default: {default})".replace("%", "%%")


def values_from_args(
    args: argparse.Namespace, settings_job: Mapping[str, object] | None
) -> tuple[dict[str, Any], list[Note]]:
    """Every parameter's value for `run`: given flags, then (models, devices) the settings,
    then the table. Raises InputError for a value out of the table's range."""
    values = default_values()
    if settings_job:
        remembered, _bad = clean_values(settings_job)  # bad ones: logged by the GUI
        values.update({p.name: remembered[p.name] for p in FROM_SETTINGS})
    chosen = getattr(args, "preset", None)
    if chosen:
        values = with_preset(values, chosen)  # before the flags: a flag beside it wins
    every = getattr(args, "device", None)
    if every:
        values.update({p.name: every for p in DEVICE_PARAMS})
    compat = import_words(_compat_words(args))
    values.update({name: compat.values[name] for name in compat.given})
    for p in PARAMS:
        if hasattr(args, dest(p)):
            given = getattr(args, dest(p))
            if isinstance(given, str):
                check_text(named(p), given)  # before it is printed anywhere
            ok, value = check_value(p, given)
            if not ok:
                ranged = p.minimum is not None and p.maximum is not None
                raise InputError(
                    "{flag} {value} is out of range.",
                    fix="Use {minimum} to {maximum}." if ranged else "See `run --help`.",
                    values={
                        "flag": p.flags[0],
                        "value": given,
                        "minimum": f"{p.minimum:g}" if ranged else "",
                        "maximum": f"{p.maximum:g}" if ranged else "",
                    },
                )
            values[p.name] = value
    template = preset(chosen).prompt if chosen else ""
    prompt = str(values[P.PROMPT.name])
    if slot(template) and (prompt == template or not prompt.strip()):  # -p "" too (issue 29)
        raise InputError(
            "The preset {preset} needs words for its prompt: {template}",
            fix='Give --prompt, e.g. --prompt "{example}".',
            values={
                "preset": chosen,
                "template": template,
                # "a [describe the object]" → "a red bicycle", not "a a red bicycle"
                "example": SLOT.sub(
                    "red bicycle" if "a [" in template else "a beach at dusk", template
                ),
            },
        )
    missing = [p.flags[0] for p in MODEL_PARAMS if not values[p.name]]
    if missing:
        raise InputError(
            "No model given for {flags}.",
            fix="Pass the flag or choose the file in Settings.",
            values={"flags": ", ".join(missing)},
        )
    for p in (*MODEL_PARAMS, P.LORA_DIR):
        # A relative path given here means this terminal's folder: the engine runs elsewhere
        # (in the run's folder). A remembered one is the settings' own business.
        given = getattr(args, dest(p), None)
        if isinstance(given, str) and given:
            values[p.name] = os.path.abspath(os.path.expanduser(given))
    return values, compat.notes


def _compat_words(args: argparse.Namespace) -> list[str]:
    words: list[str] = []
    for flag, takes_value in RUN_COMPAT_FLAGS:
        value = getattr(args, flag.lstrip("-").replace("-", "_"), None)
        if takes_value and value is not None:
            words += [flag, str(value)]
        elif not takes_value and value:
            words.append(flag)
    return words
