"""A run directory and its manifest run.json (versioned, checksummed, written atomically).

Layout of a run directory (everything a run needs to resume or be reproduced):

    run.json            manifest (below); run.json.bak is the previous good one
    inputs/             copies of the user's image, mask and reference images
    prepared/           the prepared (aligned, filled) image and mask, from app.imaging
    init_latent.bin, ref_latents.bin, conditioning.bin, final_latent.bin, decoded.png
    checkpoints/        diffuse: step_NNN.bin, metadata.json, preview_NNN.png
    logs/<stage>.log    the engine's stderr per stage
    result.png          the composited result

run.json, format 1:

    {"format": 1, "id": str, "created": iso-8601,
     "spec": JobSpec as a dict (paths as the user gave them),
     "inputs": {"image": {"file": rel, "sha256": hex, "source": str} | null, "mask": ... | null,
                "refs": [...]},
     "models": {"diffusion"|"llm"|"vae": {"path", "size", "mtime", "fingerprint"}},
     "engine": {"path": str, "version": str},
     "stages": {name: {"state": "pending"|"running"|"done"|"cached"|"failed", "key": hex|null,
                       "cached": bool, "seconds": float|null, "device": str|null,
                       "outputs": {name: {"file": rel, "sha256": hex}}, "message": str|null}},
     "steps": N|null, "last_completed_step": K, "result": rel|null,
     "checksum": sha256 of the canonical JSON of everything else}

A run.json whose checksum, format or fields do not verify is never trusted: the previous good
copy (run.json.bak) is used if it verifies, else DamagedFileError. Stage outputs are checked
against their recorded sha256 before reuse.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.atomic import write_text_atomic
from app.core.errors import DamagedFileError
from app.pipeline.spec import JobSpec, spec_from_dict, spec_to_dict

log = logging.getLogger(__name__)

RUN_FORMAT = 1
RUN_FILE = "run.json"
BACKUP_FILE = "run.json.bak"
STAGES = ("prepare", "vae-encode", "llm-encode", "diffuse", "vae-decode", "composite")
ENGINE_STAGES = ("vae-encode", "llm-encode", "diffuse", "vae-decode")
STAGE_STATES = ("pending", "running", "done", "cached", "failed", "skipped")
MAX_RUN_JSON_BYTES = 4 * 1024 * 1024


@dataclass
class StageState:
    """One stage of a run as the UI shows it."""

    name: str
    state: str  # pending | running | done | cached | failed | skipped
    cached: bool
    seconds: float | None
    device: str | None = None


def _empty_stage() -> dict[str, Any]:
    return {"state": "pending", "key": None, "cached": False, "seconds": None, "device": None,
            "outputs": {}, "message": None}


def _checksum(data: dict[str, Any]) -> str:
    body = {k: v for k, v in data.items() if k != "checksum"}
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Run:
    """A run directory and its manifest; `save()` writes run.json atomically."""

    def __init__(self, run_dir: Path, data: dict[str, Any]) -> None:
        self.dir = Path(run_dir)
        self.data = data
        self.spec: JobSpec = spec_from_dict(data["spec"])

    # --- reading ---
    @property
    def id(self) -> str:
        return str(self.data["id"])

    def stage(self, name: str) -> dict[str, Any]:
        return self.data["stages"][name]

    def stages(self) -> list[StageState]:
        out = []
        for name in STAGES:
            rec = self.data["stages"][name]
            out.append(StageState(name, rec["state"], bool(rec["cached"]), rec["seconds"],
                                  rec.get("device")))
        return out

    @property
    def steps(self) -> int | None:
        return self.data.get("steps")

    @property
    def last_completed_step(self) -> int:
        return int(self.data.get("last_completed_step") or 0)

    @property
    def result(self) -> Path | None:
        rel = self.data.get("result")
        return self.dir / rel if rel else None

    @property
    def finished(self) -> bool:
        return self.result is not None and self.data["stages"]["composite"]["state"] in (
            "done", "cached")

    def path(self, rel: str) -> Path:
        return self.dir / rel

    def output(self, stage: str, name: str) -> Path | None:
        rec = self.data["stages"][stage]["outputs"].get(name)
        return self.dir / rec["file"] if rec else None

    def to_status(self) -> dict[str, Any]:
        """The status JSON of `python -m app status --json`."""
        return {
            "run_dir": str(self.dir),
            "stages": [{"name": s.name, "state": s.state, "cached": s.cached,
                        "seconds": s.seconds, "device": s.device} for s in self.stages()],
            "steps": self.steps,
            "last_completed_step": self.last_completed_step,
            "result": str(self.result) if self.finished and self.result else None,
        }

    # --- writing ---
    def spec_changed(self, spec: JobSpec) -> None:
        self.spec = spec
        self.data["spec"] = spec_to_dict(spec)

    def save(self) -> None:
        self.data["checksum"] = _checksum(self.data)
        text = json.dumps(self.data, indent=1, ensure_ascii=False)
        target = self.dir / RUN_FILE
        if target.exists():
            # Keep the previous good manifest: a later damaged one falls back to it.
            try:
                previous = target.read_bytes()
                if _verify_bytes(previous) is not None:
                    write_text_atomic(self.dir / BACKUP_FILE, previous.decode("utf-8"))
            except OSError:
                pass
        write_text_atomic(target, text)


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


def create_run(runs_dir: Path, spec: JobSpec, run_dir: Path | None = None) -> Run:
    """A fresh run directory (not yet holding inputs; the pipeline copies them in)."""
    run_id = new_run_id()
    folder = Path(run_dir) if run_dir is not None else Path(runs_dir) / run_id
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / RUN_FILE).exists():
        raise DamagedFileError(f"{folder} already holds a run.", path=folder,
                               fix="Resume it, or choose an empty folder.")
    data: dict[str, Any] = {
        "format": RUN_FORMAT,
        "id": run_id,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "spec": spec_to_dict(spec),
        "inputs": {"image": None, "mask": None, "refs": []},
        "models": {},
        "engine": {"path": None, "version": None},
        "stages": {name: _empty_stage() for name in STAGES},
        "steps": None,
        "last_completed_step": 0,
        "result": None,
    }
    run = Run(folder, data)
    run.save()
    return run


def _verify_bytes(raw: bytes) -> dict[str, Any] | None:
    """The manifest if it verifies completely, else None."""
    if len(raw) > MAX_RUN_JSON_BYTES:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
        return None
    if data.get("checksum") != _checksum(data):
        return None
    try:
        _check_structure(data)
        spec_from_dict(data["spec"])
    except (KeyError, TypeError, ValueError, ImportError):
        return None
    return data


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
    inputs = data["inputs"]
    for key in ("image", "mask"):
        if inputs[key] is not None:
            _check_rel(inputs[key]["file"])
    for ref in inputs["refs"]:
        _check_rel(ref["file"])
    if data["result"] is not None:
        _check_rel(data["result"])
    if not isinstance(data["last_completed_step"], int):
        raise TypeError("last_completed_step")


def _check_rel(rel: object) -> None:
    """Files named in run.json stay inside the run directory."""
    if not isinstance(rel, str) or not rel or os.path.isabs(rel) or ".." in Path(rel).parts:
        raise ValueError(f"bad relative path {rel!r}")


def open_run(run_dir: Path) -> Run:
    """Loads and verifies run.json; falls back to run.json.bak; raises DamagedFileError."""
    run_dir = Path(run_dir)
    main = run_dir / RUN_FILE
    if not main.exists():
        raise DamagedFileError(f"{run_dir} is not a run folder (no {RUN_FILE}).", path=run_dir,
                               fix="Choose the folder a run was written to.")
    for candidate in (main, run_dir / BACKUP_FILE):
        try:
            raw = candidate.read_bytes()
        except OSError:
            continue
        data = _verify_bytes(raw)
        if data is not None:
            if candidate != main:
                log.warning("%s is damaged; using the previous good copy %s", main, candidate)
            return Run(run_dir, copy.deepcopy(data))
        log.warning("%s fails verification; not trusting it", candidate)
    raise DamagedFileError(f"The run manifest {main} is damaged.", path=main,
                           fix="Start the run again; its checkpoints cannot be trusted.")
