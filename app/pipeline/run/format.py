"""Verification and format upgrades of run.json (its schema: folder.py and records.py)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from app.core.errors import StepwiseError
from app.core.safe_files import read_bytes
from app.pipeline.failures import FailureKind
from app.pipeline.job.spec import spec_from_dict
from app.pipeline.run.records import (
    MAX_RUN_JSON_BYTES,
    PREPARED_DIR,
    READABLE_FORMATS,
    RUN_FORMAT,
    STAGE_STATES,
    STAGES,
    RunInputs,
)


def checksum(data: dict[str, Any]) -> str:
    body = {k: v for k, v in data.items() if k != "checksum"}
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def verify_bytes(raw: bytes, folder: Path) -> dict[str, Any] | None:
    """The manifest (upgraded to the current format) if it verifies completely, else None."""
    if len(raw) > MAX_RUN_JSON_BYTES:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") not in READABLE_FORMATS:
        return None
    if data.get("checksum") != checksum(data):
        return None
    try:
        if data["format"] == 1:
            _upgrade_from_1(data, folder)
        _check_structure(data)
        spec_from_dict(data["spec"])
    except (KeyError, TypeError, ValueError, ImportError, AttributeError):
        return None
    return data


def _upgrade_from_1(data: dict[str, Any], folder: Path) -> None:
    """Format 1 → 2 in memory: "size" becomes "model_input"; the new keys start empty."""
    size = data.pop("size", None)
    model_input = None
    if size is not None:
        width, height = (int(v) for v in size)
        model_input = {"width": width, "height": height, "region": _v1_region(folder)}
    data["model_input"] = model_input
    data.setdefault("engine_pid", None)
    data.setdefault("engine_started", None)
    data.setdefault("failure", None)
    data["engine"].setdefault("pin", None)
    for rec in data["stages"].values():
        rec.setdefault("checkpoint_key", None)
        rec.setdefault("device", None)
        rec.setdefault("message", None)
    data["format"] = RUN_FORMAT


def _v1_region(folder: Path) -> list[int] | None:
    """The only-masked region format 1 did not record, from prepared/prepare.json."""
    try:
        record = json.loads(read_bytes(folder / PREPARED_DIR / "prepare.json").decode("utf-8"))
        if record.get("only_masked"):
            return [int(v) for v in record["region"]][:4]
    except (OSError, ValueError, TypeError, KeyError, AttributeError, StepwiseError):
        pass
    return None


def _check_structure(data: dict[str, Any]) -> None:
    if not isinstance(data.get("id"), str):
        raise TypeError("id")
    stages = data["stages"]
    if not isinstance(stages, dict) or set(stages) != set(STAGES):
        raise ValueError("stages")
    for rec in stages.values():
        if rec["state"] not in STAGE_STATES or not isinstance(rec["outputs"], dict):
            raise ValueError("stage")
        for out in rec["outputs"].values():
            _check_rel(out["file"])
            if not isinstance(out["sha256"], str):
                raise TypeError("sha256")
        _check_memory(rec)
    RunInputs.from_json(data["inputs"])
    for f in RunInputs.from_json(data["inputs"]).files():
        _check_rel(f.file)
    if data["result"] is not None:
        _check_rel(data["result"])
    if not isinstance(data["last_completed_step"], int):
        raise TypeError("last_completed_step")
    failure = data["failure"]
    if failure is not None:
        FailureKind(failure["kind"])
        if failure.get("log") is not None:
            _check_rel(failure["log"])
    mi = data["model_input"]
    if mi is not None and not (isinstance(mi["width"], int) and isinstance(mi["height"], int)):
        raise TypeError("model_input")
    for key in ("engine_pid",):
        if data[key] is not None and not isinstance(data[key], int):
            raise TypeError(key)


def _check_memory(rec: dict[str, Any]) -> None:
    """The optional memory record (records.py): settings and the changes made."""
    memory = rec.get("memory")
    if memory is not None and not isinstance(memory, dict):
        raise TypeError("memory")
    if not isinstance(rec.get("color_match", {}), dict):
        raise TypeError("color_match")
    changes = rec.get("memory_changes", [])
    if not isinstance(changes, list):
        raise TypeError("memory_changes")
    for c in changes:
        if not (isinstance(c, dict) and all(isinstance(c.get(k), str) for k in _CHANGE_KEYS)):
            raise TypeError("memory_changes")


_CHANGE_KEYS = ("stage", "what", "why")


def _check_rel(rel: object) -> None:
    """Files named in run.json stay inside the run directory."""
    if not isinstance(rel, str) or not rel or os.path.isabs(rel) or ".." in Path(rel).parts:
        raise ValueError(f"bad relative path {rel!r}")
