"""A run directory and its manifest run.json (versioned, checksummed, written atomically).

This module alone knows the run.json schema: everything else reads and writes it through the
typed accessors of `Run` and `StageRecord`.

Layout of a run directory (everything a run needs to resume or be reproduced):

    run.json            manifest (below); run.json.bak is the previous good one
    inputs/             copies of the user's image, mask and reference images
    prepared/           the prepared (aligned, filled) image and mask, from app.imaging;
                        source_ref.png with spec.source_ref: the same crop before the fill,
                        klein's first reference image
    soft_mask.png       --mask-mode soft: diffuse's mask, the composite's weights in the model's
                        frame (app.imaging.soft_mask; rewritten from prepared/ before diffuse)
    init_latent.bin, ref_latents.bin, conditioning.bin, final_latent.bin, decoded.png
    checkpoints/        diffuse: step_NNN.bin, metadata.json, preview_NNN.png
    steps/step_NNN.png  "Decode this step"
    logs/<stage>.log    the engine's stderr per stage
    result.png          the composited result

run.json, format 2:

    {"format": 2, "id": str, "created": iso-8601,
     "spec": JobSpec as a dict (paths as the user gave them; a seed of -1 is drawn once),
     "inputs": {"image": {"file": rel, "sha256": hex, "source": str} | null, "mask": ... | null,
                "refs": [...]},   # image may hold "name": the user's photo's file name, never
                                  # a path (absent in runs made before 2026-12-02: titled by file)
     "models": {"diffusion"|"llm"|"vae": {"path", "size", "mtime", "fingerprint"}},
     "engine": {"path": str|null, "version": str|null, "pin": str|null},  # pin: hello event
     "engine_pid": int|null,          # the sd-stage working on the run (orphan check)
     "engine_started": float|null,    # its creation time: pid + this = the engine's identity
     "model_input": {"width": int, "height": int, "region": [x, y, w, h]|null} | null,
                                      # what the engine is given (set by prepare); region in
                                      # the original photo's pixels (of the expanded picture
                                      # with spec.prepare.expand), null = all of it / txt2img
     "stages": {name: {"state": "pending"|"running"|"done"|"cached"|"failed"|"skipped",
                       "key": hex|null, "cached": bool, "seconds": float|null,
                       "device": str|null, "outputs": {name: {"file": rel, "sha256": hex}},
                       "message": str|null,
                       "checkpoint_key": hex|null}},   # diffuse: key the checkpoints belong to
     "steps": N|null, "last_completed_step": K, "result": rel|null,
     "failure": {"kind": FailureKind, "stage": str, "detail": str, "log": rel|null,
                 "message": str, "values": {name: str|int|float|bool}, "fix": str} | null,
       (detail: the English text; message/fix: the error's templates, filled from values,
        rendered by each reader in its language; absent in runs made before 2026-12-02)
     "accepted": {"step": K, "diffuse_key": hex} | absent,  # finished early from step K's x0
                                      # (execute/accept.py); true while diffuse's key is it
     "checksum": sha256 of the canonical JSON of everything else}

Format 1 (before 2026-12) had "size": [w, h] instead of "model_input" and no "failure";
it is opened, upgraded in memory and written back as format 2.

A run.json whose checksum, format or fields do not verify is never trusted: the previous good
copy (run.json.bak) is used if it verifies, else DamagedFileError. Stage outputs are checked
against their recorded sha256 before reuse.
"""

from __future__ import annotations

import copy
import json
import logging
import secrets
import time
from pathlib import Path
from typing import Any

from app.core.atomic import write_text_atomic
from app.core.errors import DamagedFileError, InputError, StepwiseError
from app.core.safe_files import SafeFileError, read_bytes
from app.engine.stage import Stage
from app.pipeline.failures import Failure, FailureKind, json_values
from app.pipeline.job.spec import JobSpec, spec_from_dict, spec_to_dict
from app.pipeline.run.entries import (  # noqa: F401 - re-exported: run folder entries
    PREVIEWS_DIR,
    RUN_FOLDERS,
    check_entries,
    check_new_folder,
    remove_leftover_temps,
)
from app.pipeline.run.format import checksum, verify_bytes
from app.pipeline.run.records import (  # noqa: F401 - re-exported: the schema's names
    BACKUP_FILE,
    CHECKPOINT_DIR,
    CONDITIONING,
    DECODED,
    ENGINE_STAGES,
    FINAL_LATENT,
    INIT_LATENT,
    INPUTS_DIR,
    LOG_DIR,
    PREPARED_DIR,
    REF_LATENTS,
    RESULT_FILE,
    RUN_FILE,
    RUN_FORMAT,
    SOFT_MASK,
    SOURCE_REF_FILE,
    STAGE_STATES,
    STAGES,
    STEPS_DIR,
    FileRecord,
    InputFile,
    ModelInputRecord,
    RunInputs,
    StageRecord,
    StageState,
    empty_stage,
)

log = logging.getLogger(__name__)


class Run:
    """A run directory and its manifest; `save()` writes run.json atomically."""

    def __init__(self, run_dir: Path, data: dict[str, Any]) -> None:
        self.dir = Path(run_dir)
        self._data = data
        self.spec: JobSpec = spec_from_dict(data["spec"])

    # --- reading ---
    @property
    def id(self) -> str:
        return str(self._data["id"])

    @property
    def created(self) -> str:
        return str(self._data.get("created", ""))

    def stage(self, name: str) -> StageRecord:
        return StageRecord(self._data["stages"][name])

    def stages(self) -> list[StageState]:
        return [self.stage(name).view(name) for name in STAGES]

    @property
    def steps(self) -> int | None:
        return self._data.get("steps")

    @steps.setter
    def steps(self, value: int | None) -> None:
        self._data["steps"] = value

    @property
    def last_completed_step(self) -> int:
        return int(self._data.get("last_completed_step") or 0)

    @last_completed_step.setter
    def last_completed_step(self, value: int) -> None:
        self._data["last_completed_step"] = int(value)

    @property
    def result(self) -> Path | None:
        rel = self._data.get("result")
        return self.dir / rel if rel else None

    def set_result(self, rel: str | None) -> None:
        self._data["result"] = rel

    @property
    def finished(self) -> bool:
        return self.result is not None and self.stage(Stage.COMPOSITE).done

    @property
    def inputs(self) -> RunInputs:
        return RunInputs.from_json(self._data["inputs"])

    @inputs.setter
    def inputs(self, value: RunInputs) -> None:
        self._data["inputs"] = value.to_json()

    def inputs_json(self) -> dict[str, Any]:
        """The inputs in their JSON form (what keys.stage_keys hashes)."""
        return copy.deepcopy(self._data["inputs"])

    @property
    def models(self) -> dict[str, Any]:
        return copy.deepcopy(self._data["models"])

    @models.setter
    def models(self, value: dict[str, Any]) -> None:
        self._data["models"] = copy.deepcopy(value)

    @property
    def engine_version(self) -> str | None:
        return self._data["engine"].get("version")

    def set_engine(self, path: str, version: str) -> None:
        self._data["engine"].update(path=path, version=version)

    def set_engine_hello(self, version: str, pin: str) -> None:
        self._data["engine"].update(version=version, pin=pin)

    @property
    def engine_pid(self) -> int | None:
        return self._data.get("engine_pid")

    @engine_pid.setter
    def engine_pid(self, value: int | None) -> None:
        self._data["engine_pid"] = value

    @property
    def engine_started(self) -> float | None:
        value = self._data.get("engine_started")
        return float(value) if isinstance(value, int | float) else None

    @engine_started.setter
    def engine_started(self, value: float | None) -> None:
        self._data["engine_started"] = value

    @property
    def model_input(self) -> ModelInputRecord | None:
        mi = self._data.get("model_input")
        if mi is None:
            return None
        region = mi.get("region")
        x, y, w, h = (int(v) for v in region) if region is not None else (0, 0, 0, 0)
        return ModelInputRecord(
            int(mi["width"]), int(mi["height"]), None if region is None else (x, y, w, h)
        )

    @model_input.setter
    def model_input(self, value: ModelInputRecord | None) -> None:
        self._data["model_input"] = (
            None
            if value is None
            else {
                "width": value.width,
                "height": value.height,
                "region": None if value.region is None else list(value.region),
            }
        )

    @property
    def failure(self) -> Failure | None:
        f = self._data.get("failure")
        if f is None:
            return None
        log_rel = f.get("log")
        values = f.get("values")
        return Failure(
            FailureKind(f["kind"]),
            str(f["stage"]),
            str(f["detail"]),
            self.dir / log_rel if log_rel else None,
            str(f.get("message") or ""),  # runs made before the templates were kept: ""
            json_values(values) if isinstance(values, dict) else {},
            str(f.get("fix") or ""),
        )

    @failure.setter
    def failure(self, value: Failure | None) -> None:
        if value is None:
            self._data["failure"] = None
            return
        log_rel = None
        if value.log_path is not None and value.log_path.is_relative_to(self.dir):
            log_rel = value.log_path.relative_to(self.dir).as_posix()
        self._data["failure"] = {
            "kind": str(value.kind),
            "stage": value.stage,
            "detail": value.detail,
            "log": log_rel,
            "message": value.message,
            "values": json_values(value.values),
            "fix": value.fix,
        }

    @property
    def accepted_step(self) -> int | None:
        """The step the run was accepted at (accept.py), while diffuse still holds that latent."""
        acc = self._data.get("accepted")
        if not isinstance(acc, dict) or acc.get("diffuse_key") is None:
            return None
        step = acc.get("step")
        if self.stage(Stage.DIFFUSE).key != acc["diffuse_key"] or not isinstance(step, int):
            return None
        return step

    def set_accepted(self, step: int, diffuse_key: str) -> None:
        self._data["accepted"] = {"step": int(step), "diffuse_key": diffuse_key}

    def path(self, rel: str) -> Path:
        return self.dir / rel

    def output(self, stage: str, name: str) -> Path | None:
        rec = self.stage(stage).outputs.get(name)
        return self.dir / rec.file if rec else None

    # --- writing ---
    def spec_changed(self, spec: JobSpec) -> None:
        self.spec = spec
        self._data["spec"] = spec_to_dict(spec)

    def save(self) -> None:
        self._data["checksum"] = checksum(self._data)
        text = json.dumps(self._data, indent=1, ensure_ascii=False)
        target = self.dir / RUN_FILE
        if target.exists():
            # Keep the previous good manifest: a later damaged one falls back to it.
            try:
                previous = target.read_bytes()
                if verify_bytes(previous, self.dir) is not None:
                    write_text_atomic(self.dir / BACKUP_FILE, previous.decode("utf-8"))
            except (OSError, StepwiseError):
                pass  # the backup is a second copy: a folder or link in its place keeps none
        write_text_atomic(target, text)


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


def create_run(runs_dir: Path, spec: JobSpec, run_dir: Path | None = None) -> Run:
    """A fresh run directory (not yet holding inputs; the pipeline copies them in).

    The folder must be new or empty (a lock file aside: the caller holds the run's lock while
    it creates the run, so a second run into the same folder is refused, never mixed in); a
    folder of the user's own files is never written into."""
    run_id = new_run_id()
    folder = Path(run_dir) if run_dir is not None else Path(runs_dir) / run_id
    folder.mkdir(parents=True, exist_ok=True)
    check_new_folder(folder)
    data: dict[str, Any] = {
        "format": RUN_FORMAT,
        "id": run_id,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "spec": spec_to_dict(spec),
        "inputs": {"image": None, "mask": None, "refs": []},
        "models": {},
        "engine": {"path": None, "version": None, "pin": None},
        "engine_pid": None,
        "engine_started": None,
        "model_input": None,
        "stages": {name: empty_stage() for name in STAGES},
        "steps": None,
        "last_completed_step": 0,
        "result": None,
        "failure": None,
    }
    run = Run(folder, data)
    run.save()
    return run


class NotARunFolder(InputError, DamagedFileError):
    """The folder named holds no run.json: the command line (or a choice) named the wrong
    folder (an InputError: `status`/`resume` exit 2), caught like a damaged run where runs are
    listed."""


def open_run(run_dir: Path) -> Run:
    """Loads and verifies run.json; falls back to run.json.bak; raises DamagedFileError."""
    run_dir = Path(run_dir)
    main = run_dir / RUN_FILE
    backup = run_dir / BACKUP_FILE
    if not main.exists() and not backup.exists():
        raise NotARunFolder(
            "{path} is not a run folder (no {file}).",
            path=run_dir,
            fix="Choose the folder a run was written to.",
            values={"file": RUN_FILE},
        )
    for candidate in (main, backup):
        try:
            raw = read_bytes(candidate)  # a FIFO or device here is a message, never a hang
        except (FileNotFoundError, NotADirectoryError):
            continue
        except SafeFileError:
            raise
        except OSError:
            continue
        data = verify_bytes(raw, run_dir)
        if data is not None:
            if candidate != main:
                log.warning(
                    "%s is damaged or missing; using the previous good copy %s", main, candidate
                )
            return Run(run_dir, copy.deepcopy(data))
        log.warning("%s fails verification; not trusting it", candidate)
    raise DamagedFileError(
        "The run manifest {path} is damaged.",
        path=main,
        fix="Start the run again; its checkpoints cannot be trusted.",
    )
