"""Typed, versioned user settings, saved atomically; a damaged file falls back to defaults."""

from __future__ import annotations

import dataclasses
import json
import logging
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path

from app.core.atomic import write_text_atomic

SETTINGS_VERSION = 1
log = logging.getLogger(__name__)


@dataclass
class ModelSettings:
    """Model files; empty string = not chosen yet."""

    diffusion_model: str = ""
    llm: str = ""
    vae: str = ""
    lora_dir: str = ""


@dataclass
class DeviceSettings:
    """Device per stage: "cpu" or "vulkan0", "vulkan1", ... (the engine lists them)."""

    llm: str = "cpu"
    diffusion: str = "vulkan0"
    vae: str = "vulkan0"
    threads: int = 0
    flash_attention: bool = True
    vae_tiling: bool = True
    mmap: bool = True


@dataclass
class GenerationSettings:
    """Defaults right for the distilled klein models (cfg 1, 4 steps, flux2-like schedule)."""

    prompt: str = ""
    negative_prompt: str = ""
    steps: int = 4
    seed: int = 42
    random_seed: bool = False
    strength: float = 1.0
    cfg_scale: float = 1.0
    sampler: str = "euler"
    scheduler: str = "simple"
    preview: str = "proj"


@dataclass
class PaintSettings:
    """Brush and overlay state that the painter restores."""

    brush_size: int = 64
    brush_hardness: float = 0.8
    brush_opacity: float = 1.0
    overlay_color: str = "#ff3050"
    overlay_opacity: float = 0.5
    align_mode: str = "pad"
    fill_mode: str = "grey"
    only_masked: bool = False
    region_padding: int = 64
    feather: int = 8


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
    models: ModelSettings = field(default_factory=ModelSettings)
    devices: DeviceSettings = field(default_factory=DeviceSettings)
    generation: GenerationSettings = field(default_factory=GenerationSettings)
    paint: PaintSettings = field(default_factory=PaintSettings)


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
        if dataclasses.is_dataclass(hint):
            values[f.name] = _coerce(hint, raw, f"{where}.{f.name}", problems)
            continue
        origin = typing.get_origin(hint) or hint
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


def settings_from_dict(data: object) -> tuple[Settings, list[str]]:
    problems: list[str] = []
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
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        log.warning(
            "Settings file %s is damaged (%s); using defaults. The damaged copy is kept as %s.bad",
            path,
            exc,
            path.name,
        )
        _keep_damaged(path)
        return Settings()
    settings, problems = settings_from_dict(data)
    for problem in problems:
        log.warning("Settings file %s: %s; using the default there.", path, problem)
    return settings


def _keep_damaged(path: Path) -> None:
    try:
        path.replace(path.with_name(path.name + ".bad"))
    except OSError:
        pass


def save_settings(path: Path, settings: Settings) -> None:
    write_text_atomic(path, json.dumps(dataclasses.asdict(settings), indent=2, ensure_ascii=False))
