"""Typed views of run.json's records (a stage, a file, the inputs, what the engine is given)
and the names of a run directory's files. Part of the run.json schema, with folder.py
(the manifest) and format.py (verification, format upgrades).

An engine stage's record may hold (format 2, optional; absent in runs made before them):
  "memory": {"device", "flash_attention", "vae_tiling", "vae_tile_size", "weights_on_cpu",
             "max_vram_gib"}      the memory settings it runs with (app/pipeline/execute/fit.py)
  "memory_changes": [{"stage", "what", "from", "to", "why"}, ...]   what fitting or a retry
             changed from the job's settings, in order; why = "plan" | "nothing_fits" |
             "out_of_memory" | "bad_decode"
The composite stage's record may hold (optional; absent with colour match off, and in runs
made before issue 40):
  "color_match": {"applied": bool, "offset_lab", "gain", "confidence", "source", "slope",
             "slope_se", "valid", "support_px", "share", "witness_px"[, "beyond_cells": {...}]}
             | {"applied": false, "reason": code, "values": {...}}   what colour match read
             and took out (app/imaging/drift.py, Drift.as_record), or why it declined
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The stage names (app/engine/stage.py, the one table), here for run.json's readers too.
from app.engine.stage import ENGINE_STAGES as ENGINE_STAGES
from app.engine.stage import STAGES as STAGES

RUN_FORMAT = 2
READABLE_FORMATS = (1, 2)
RUN_FILE = "run.json"
BACKUP_FILE = "run.json.bak"
STAGE_STATES = ("pending", "running", "done", "cached", "failed", "skipped")
MAX_RUN_JSON_BYTES = 4 * 1024 * 1024

# The files of a run directory (relative names).
RESULT_FILE = "result.png"
INIT_LATENT = "init_latent.bin"
REF_LATENTS = "ref_latents.bin"
CONDITIONING = "conditioning.bin"
FINAL_LATENT = "final_latent.bin"
DECODED = "decoded.png"
CHECKPOINT_DIR = "checkpoints"
PREPARED_DIR = "prepared"
# With source_ref: the prepared crop before the fill, the first reference image (PrepareStage).
SOURCE_REF_FILE = f"{PREPARED_DIR}/source_ref.png"
SOFT_MASK = "soft_mask.png"  # --mask-mode soft: the engine's mask (imaging/soft_mask.py)
INPUTS_DIR = "inputs"
LOG_DIR = "logs"
STEPS_DIR = "steps"
PREVIEWS_DIR = "previews"  # the background decoder's decoded_NNN.png (jobs/preview_follow.py)
# The engine's preview of each step in CHECKPOINT_DIR (native/src/checkpoints.cpp writes it).
PREVIEW_FILE = "preview_{step:03d}.png"
_PREVIEW_NAME = re.compile(r"^preview_(\d+)\.png$")


def preview_file(step: int) -> str:
    """The name of step `step`'s preview in CHECKPOINT_DIR."""
    return PREVIEW_FILE.format(step=step)


def preview_step(name: str) -> int | None:
    """The step a preview's file name is of; None for any other name."""
    match = _PREVIEW_NAME.match(name)
    return int(match.group(1)) if match else None


@dataclass
class StageState:
    """One stage of a run as the UI shows it."""

    name: str
    state: str  # pending | running | done | cached | failed | skipped
    cached: bool
    seconds: float | None
    device: str | None = None


@dataclass(frozen=True)
class FileRecord:
    """A file of the run (relative to its folder) and its sha256."""

    file: str
    sha256: str


@dataclass(frozen=True)
class InputFile:
    """A copy of one of the user's files in inputs/; `name`: the file name the user knows the
    picture by, never a path ("" where none was recorded: runs made before it, a job that
    named none)."""

    file: str
    sha256: str
    source: str
    name: str = ""


@dataclass(frozen=True)
class RunInputs:
    image: InputFile | None = None
    mask: InputFile | None = None
    refs: tuple[InputFile, ...] = ()

    def to_json(self) -> dict[str, Any]:
        def one(f: InputFile | None) -> dict[str, str] | None:
            if f is None:
                return None
            named = {"name": f.name} if f.name else {}  # absent as in runs made before it
            return {"file": f.file, "sha256": f.sha256, "source": f.source, **named}

        return {
            "image": one(self.image),
            "mask": one(self.mask),
            "refs": [one(r) for r in self.refs],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> RunInputs:
        def one(d: dict[str, Any] | None) -> InputFile | None:
            if d is None:
                return None
            name = Path(str(d.get("name", ""))).name  # a name, even if a path was written
            return InputFile(str(d["file"]), str(d["sha256"]), str(d.get("source", "")), name)

        refs = tuple(f for f in (one(r) for r in data["refs"]) if f is not None)
        return RunInputs(one(data["image"]), one(data["mask"]), refs)

    def files(self) -> list[InputFile]:
        return [f for f in (self.image, self.mask, *self.refs) if f is not None]


@dataclass(frozen=True)
class ModelInputRecord:
    """What the engine is given: size and the region of the original photo (None = all)."""

    width: int
    height: int
    region: tuple[int, int, int, int] | None


class StageRecord:
    """Typed view of one stage's entry in run.json (changes go into the manifest)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._d = data

    @property
    def state(self) -> str:
        return str(self._d["state"])

    @state.setter
    def state(self, value: str) -> None:
        if value not in STAGE_STATES:
            raise ValueError(value)
        self._d["state"] = value

    @property
    def key(self) -> str | None:
        return self._d["key"]

    @key.setter
    def key(self, value: str | None) -> None:
        self._d["key"] = value

    @property
    def cached(self) -> bool:
        return bool(self._d["cached"])

    @property
    def seconds(self) -> float | None:
        return self._d["seconds"]

    @property
    def device(self) -> str | None:
        return self._d.get("device")

    @device.setter
    def device(self, value: str | None) -> None:
        self._d["device"] = value

    @property
    def message(self) -> str | None:
        return self._d.get("message")

    @property
    def checkpoint_key(self) -> str | None:
        return self._d.get("checkpoint_key")

    @checkpoint_key.setter
    def checkpoint_key(self, value: str | None) -> None:
        self._d["checkpoint_key"] = value

    @property
    def memory(self) -> dict[str, Any] | None:
        """The memory settings the stage ran (or runs) with (fit.StageSettings as JSON)."""
        value = self._d.get("memory")
        return value if isinstance(value, dict) else None

    @memory.setter
    def memory(self, value: dict[str, Any] | None) -> None:
        self._d["memory"] = value

    @property
    def memory_changes(self) -> list[dict[str, Any]]:
        """What fitting and out-of-memory retries changed: {stage, what, from, to, why}."""
        value = self._d.get("memory_changes")
        return list(value) if isinstance(value, list) else []

    @memory_changes.setter
    def memory_changes(self, value: list[dict[str, Any]]) -> None:
        self._d["memory_changes"] = list(value)

    @property
    def color_match(self) -> dict[str, Any] | None:
        """What colour match did at the composite (Drift.as_record), None: off or not run."""
        value = self._d.get("color_match")
        return value if isinstance(value, dict) else None

    @color_match.setter
    def color_match(self, value: dict[str, Any] | None) -> None:
        if value is None:
            self._d.pop("color_match", None)
        else:
            self._d["color_match"] = value

    @property
    def done(self) -> bool:
        return self.state in ("done", "cached")

    @property
    def outputs(self) -> dict[str, FileRecord]:
        return {name: FileRecord(o["file"], o["sha256"]) for name, o in self._d["outputs"].items()}

    @outputs.setter
    def outputs(self, value: dict[str, FileRecord]) -> None:
        self._d["outputs"] = {n: {"file": f.file, "sha256": f.sha256} for n, f in value.items()}

    def mark(
        self,
        state: str,
        *,
        key: str | None,
        seconds: float | None,
        cached: bool,
        message: str | None = None,
    ) -> None:
        self.state = state
        self._d.update(key=key, seconds=seconds, cached=cached, message=message)

    def copy_from(self, other: StageRecord) -> None:
        self._d.clear()
        self._d.update(copy.deepcopy(other._d))

    def view(self, name: str) -> StageState:
        return StageState(name, self.state, self.cached, self.seconds, self.device)


def empty_stage() -> dict[str, Any]:
    return {
        "state": "pending",
        "key": None,
        "cached": False,
        "seconds": None,
        "device": None,
        "outputs": {},
        "message": None,
        "checkpoint_key": None,
    }
