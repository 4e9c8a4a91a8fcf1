"""Typed, versioned user settings, saved atomically; a damaged file falls back to defaults.

Version 2 keeps the generation parameters in `job`: a plain dict by parameter name (the
names of app.pipeline.job.params; core cannot import the pipeline, so the values are checked by
params.clean_values where they are used). A version-1 file is migrated: its models,
generation, devices and the painter's Prepare choices become `job` entries (V1_TO_JOB).
Versions 3 and 4 changed one default each (ARCHITECTURE.md, "Defaults that follow a bench"):
colour match went off (issue 32's bench), then on again (issue 40's witness-validated match).
A file of version 2 or 3 saved every value of the job form, so an entry equal to the default
of its day for a row whose default changed since is that default, not a choice: the migration
drops it and the new default applies (OLD_DEFAULTS); a value other than its day's default was
a choice and is kept. (Version 3's rule compared with `true`, but the row holds "on" / "off":
it never dropped anything, so a version-3 file's "on" may be version 2's default kept; it is
the new default anyway.)
"""

from __future__ import annotations

import dataclasses
import json
import logging
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path

from app.core.atomic import write_text_atomic
from app.core.safe_files import SafeFileError, check_entry, read_bytes

SETTINGS_VERSION = 4
# By file version: the defaults of that version's day of the `job` rows whose default changed
# since. Such an entry is dropped when the file is read, so the new default applies (a file that
# saved every value cannot tell a choice from the default it saved).
OLD_DEFAULTS: dict[int, dict[str, object]] = {
    2: {"color_match": "on"},
    3: {"color_match": "off"},
}
MAX_SETTINGS_BYTES = 16 * 1024 * 1024  # far more than any settings file
# Version 1's place of each generation parameter -> its name in `job` (Param.name).
V1_TO_JOB: dict[tuple[str, str], str] = {
    ("models", "diffusion_model"): "diffusion_model",
    ("models", "llm"): "llm_model",
    ("models", "vae"): "vae_model",
    ("models", "lora_dir"): "lora_dir",
    **{("generation", name): name for name in (
        "prompt", "negative_prompt", "steps", "seed", "strength", "cfg_scale", "sampler",
        "scheduler", "preview")},
    ("devices", "llm"): "llm_device",
    ("devices", "diffusion"): "diffusion_device",
    ("devices", "vae"): "vae_device",
    **{("devices", name): name for name in ("threads", "flash_attention", "vae_tiling", "mmap")},
    ("paint", "align_mode"): "align",
    ("paint", "fill_mode"): "fill",
    ("paint", "only_masked"): "only_masked",
    ("paint", "region_padding"): "padding",
    ("paint", "feather"): "feather",
}  # fmt: skip
JobValue = str | int | float | bool
log = logging.getLogger(__name__)


@dataclass
class PaintSettings:
    """Brush and overlay state that the painter restores."""

    brush_size: int = 64
    brush_hardness: float = 0.8
    brush_opacity: float = 1.0
    overlay_color: str = "#ff3050"
    overlay_opacity: float = 0.5


@dataclass
class WorkSettings:
    """When the queue's worker may use the computer (app/pipeline/work_policy.py): mode
    "always", "idle" (after `idle_minutes` without input) or "hours" (`hours`, "01:00-07:00");
    `not_on_battery` adds "never on battery". Checked where it is used (policy_of)."""

    mode: str = "always"
    idle_minutes: int = 10
    hours: str = "01:00-07:00"
    not_on_battery: bool = False


@dataclass
class Settings:
    """Everything Stepwise remembers between sessions."""

    version: int = SETTINGS_VERSION
    language: str = ""
    engine_path: str = ""
    cache_limit_mb: int = 4096
    window_geometry: str = ""
    window_state: str = ""
    recent_files: list[str] = field(default_factory=list)
    paint: PaintSettings = field(default_factory=PaintSettings)
    # The generation parameters by name (app.pipeline.job.params); checked where they are used.
    job: dict[str, JobValue] = field(default_factory=dict)
    # The Generate panel's Setup sections, open (True) or closed, by section key.
    setup_sections: dict[str, bool] = field(default_factory=dict)
    # The queue worker's work policy (version 2 files without it get the default: always).
    work: WorkSettings = field(default_factory=WorkSettings)
    # Add to queue's "random seeds": each variation draws its own seed (else seed, seed + 1, …).
    queue_random_seeds: bool = False


def _coerce(cls: type, data: object, where: str, problems: list[str]) -> object:
    """Builds dataclass `cls` from JSON data, keeping defaults for missing or mistyped fields."""
    default = cls()
    if not isinstance(data, dict):
        problems.append(f"{where} is not an object")
        return default
    hints = typing.get_type_hints(cls)
    values = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        raw = data[f.name]
        hint = hints[f.name]
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            values[f.name] = _coerce(hint, raw, f"{where}.{f.name}", problems)
            continue
        origin = typing.get_origin(hint) or hint
        if origin is dict:
            if isinstance(raw, dict):
                values[f.name] = _job_dict(raw, f"{where}.{f.name}", problems)
            else:
                problems.append(f"{where}.{f.name} is not an object")
            continue
        if origin is list and isinstance(raw, list) and all(isinstance(x, str) for x in raw):
            values[f.name] = list(raw)
        elif origin is float and isinstance(raw, int | float) and not isinstance(raw, bool):
            values[f.name] = float(raw)
        elif origin in (int, str, bool) and type(raw) is origin:
            values[f.name] = raw
        elif isinstance(origin, types.UnionType):
            problems.append(f"{where}.{f.name} has an unsupported type")
        else:
            problems.append(f"{where}.{f.name} has the wrong type")
    return dataclasses.replace(default, **values)


def _job_dict(raw: dict, where: str, problems: list[str]) -> dict[str, JobValue]:
    """The JSON scalars of `raw` by string key (anything else is dropped and reported)."""
    out: dict[str, JobValue] = {}
    for key, value in raw.items():
        if isinstance(key, str) and isinstance(value, str | int | float | bool):
            out[key] = value
        else:
            problems.append(f"{where}.{key} is not a plain value")
    return out


def migrate_v1(data: dict) -> dict:
    """A version-1 settings object with the `job` section built from its old sections (which
    are then ignored; entries that are not plain values are left out)."""
    job: dict[str, object] = {}
    for (section, key), name in V1_TO_JOB.items():
        part = data.get(section)
        if isinstance(part, dict) and key in part:
            job[name] = part[key]
    generation = data.get("generation")
    if isinstance(generation, dict) and generation.get("random_seed") is True:
        job["seed"] = -1  # version 2 spells "a new random seed every run" as seed -1
    return {**data, "job": job, "version": SETTINGS_VERSION}


def drop_old_defaults(data: dict, version: int) -> dict:
    """A version-2 or -3 settings object without the job entries that hold the default of
    that version's day for a row whose default changed since."""
    old = OLD_DEFAULTS[version]
    job = data.get("job")
    if isinstance(job, dict):
        job = {k: v for k, v in job.items() if not (k in old and type(v) is type(old[k])
                                                     and v == old[k])}  # fmt: skip
        data = {**data, "job": job}
    return {**data, "version": SETTINGS_VERSION}


def settings_from_dict(data: object) -> tuple[Settings, list[str]]:
    problems: list[str] = []
    version = data.get("version", 1) if isinstance(data, dict) else None
    if isinstance(data, dict) and isinstance(version, int) and version < 2 and "job" not in data:
        data = migrate_v1(data)
    elif isinstance(data, dict) and isinstance(version, int) and version in OLD_DEFAULTS:
        data = drop_old_defaults(data, version)
    settings = typing.cast(Settings, _coerce(Settings, data, "settings", problems))
    if settings.version > SETTINGS_VERSION:
        problems.append(f"settings are from a newer Stepwise (version {settings.version})")
    settings.version = SETTINGS_VERSION
    return settings, problems


def load_settings(path: Path) -> Settings:
    """Reads settings; any damage is logged and replaced by defaults, never raised."""
    if not path.exists():
        return Settings()
    try:
        data = json.loads(read_bytes(path, limit=MAX_SETTINGS_BYTES).decode("utf-8"))
    except SafeFileError as exc:  # a folder, FIFO, link…: not ours to move; left where it is
        log.warning("Settings file %s cannot be read (%s); using defaults.", path, exc)
        return Settings()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        kept = _keep_damaged(path)
        log.warning(
            "Settings file %s is damaged (%s); using defaults. %s",
            path,
            exc,
            f"The damaged copy is kept as {path.name}.bad" if kept else "It is left as it is.",
        )
        return Settings()
    settings, problems = settings_from_dict(data)
    for problem in problems:
        log.warning("Settings file %s: %s; using the default there.", path, problem)
    return settings


def _keep_damaged(path: Path) -> bool:
    """A damaged settings file is kept as settings.json.bad (True); a link (read through, as a
    user's dotfiles link) is the user's and stays where it is (False)."""
    try:
        if check_entry(path):
            path.replace(path.with_name(path.name + ".bad"))
            return True
    except (OSError, SafeFileError):
        pass
    return False


def save_settings(path: Path, settings: Settings) -> None:
    write_text_atomic(path, json.dumps(dataclasses.asdict(settings), indent=2, ensure_ascii=False))
