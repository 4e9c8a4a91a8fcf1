"""Diffuse's checkpoints: which are valid (hash matches metadata.json) and sharing for branch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from app.core.atomic import write_text_atomic
from app.core.errors import InputError, StepwiseError
from app.core.safe_files import read_bytes
from app.engine.stage import Stage
from app.engine.tensorfile import file_sha256
from app.pipeline.run.folder import CHECKPOINT_DIR, Run
from app.pipeline.run.inputs import copy_atomic

MAX_METADATA_BYTES = 1024 * 1024
METADATA_FILE = "metadata.json"
MAX_MEMO = 4096
# sha256 by (path, size, mtime_ns): snapshots list valid checkpoints often, and a big photo's
# checkpoints are megabytes each. A rewritten file has a new mtime and is hashed again.
_digests: dict[tuple[str, int, int], str] = {}


def _sha256(path: Path) -> str:
    st = path.stat()
    memo = (str(path), st.st_size, st.st_mtime_ns)
    digest = _digests.get(memo)
    if digest is None:
        digest = file_sha256(path)
        if len(_digests) >= MAX_MEMO:
            _digests.clear()
        _digests[memo] = digest
    return digest


def metadata(run_dir: Path) -> dict[str, Any] | None:
    """The engine's checkpoints/metadata.json (untrusted, bounded), or None."""
    path = run_dir / CHECKPOINT_DIR / METADATA_FILE
    try:
        if path.stat().st_size > MAX_METADATA_BYTES:
            return None
        data = json.loads(read_bytes(path, limit=MAX_METADATA_BYTES).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, StepwiseError):
        return None
    return data if isinstance(data, dict) else None


def valid_checkpoints(run_dir: Path) -> dict[int, Path]:
    """Checkpoints whose file hash matches metadata.json, by step."""
    meta = metadata(run_dir)
    if meta is None or not isinstance(meta.get("checkpoints"), dict):
        return {}
    out: dict[int, Path] = {}
    for step_text, entry in meta["checkpoints"].items():
        try:
            step = int(step_text)
            name = entry["file"]
            digest = entry["sha256"]
        except (ValueError, TypeError, KeyError):
            continue
        if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
            continue
        path = run_dir / CHECKPOINT_DIR / name
        try:
            if _sha256(path) == digest:
                out[step] = path
        except (OSError, StepwiseError):
            continue
    return out


class CheckpointsKept(InputError):
    """The diffuse key changed under a run's checkpoints without the user changing the job
    (another engine build, a model file replaced): they are kept until the user chooses."""


def check_not_orphaned(run: Run, key: str | None) -> None:
    """Raises CheckpointsKept when valid checkpoints belong to another diffuse key than `key`
    and nobody chose to drop them (update_run / start_over clear checkpoint_key for that)."""
    recorded = run.stage(Stage.DIFFUSE).checkpoint_key
    if recorded is None or key is None or recorded == key:
        return
    valid = valid_checkpoints(run.dir)
    if not valid:
        return
    raise CheckpointsKept(
        "The diffuse stage's inputs changed since its {count} checkpoints were made (the "
        "engine build, a model file or the job's files changed); they are kept, not deleted.",
        path=run.dir / CHECKPOINT_DIR,
        fix="Start diffuse over with `resume --start-over {run_dir}` (the checkpoints are "
        "deleted then), or branch the run to keep them beside a new one.",
        values={"count": len(valid), "run_dir": run.dir},
    )


def allow_start_over(run: Run) -> None:
    """The user chose to start diffuse over: the next run may delete the checkpoints."""
    run.stage(Stage.DIFFUSE).checkpoint_key = None
    run.save()


def reset_if_stale(run: Run, key: str, steps: int) -> None:
    """Checkpoints made with other inputs than `key` are worthless: removed, count from 0.
    Only when nobody's checkpoints would go silently (check_not_orphaned first)."""
    check_not_orphaned(run, key)
    rec = run.stage(Stage.DIFFUSE)
    folder = run.dir / CHECKPOINT_DIR
    if rec.checkpoint_key != key:
        shutil.rmtree(folder, ignore_errors=True)
        rec.checkpoint_key = key
        run.last_completed_step = 0
        run.steps = steps
        run.save()
    folder.mkdir(parents=True, exist_ok=True)


def clear(run: Run) -> None:
    """Starts diffuse over (the engine refused to resume)."""
    folder = run.dir / CHECKPOINT_DIR
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    run.last_completed_step = 0
    run.save()


def step_after_stop(run: Run, engine_step: int | None) -> int:
    """The step a stopped run resumes after: its newest valid checkpoint (recorded)."""
    valid = valid_checkpoints(run.dir)
    step = max(valid, default=0)
    run.last_completed_step = step
    run.save()
    return step if valid or engine_step is None else engine_step


def share(old: Run, new: Run, upto: int, key: str) -> None:
    """Copies old's valid checkpoints 1..upto into new (same diffuse key: resumable there)."""
    meta = metadata(old.dir)
    valid = valid_checkpoints(old.dir)
    if meta is None or not valid:
        return
    folder = new.dir / CHECKPOINT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    kept = {}
    for step, path in valid.items():
        if step <= upto:
            copy_atomic(path, folder / path.name)
            kept[str(step)] = meta["checkpoints"][str(step)]
    if not kept:
        return
    meta["checkpoints"] = kept
    meta["last_completed_step"] = max(int(k) for k in kept)
    write_text_atomic(folder / METADATA_FILE, json.dumps(meta))
    new.stage(Stage.DIFFUSE).checkpoint_key = key
    new.last_completed_step = meta["last_completed_step"]
    new.steps = old.steps
