"""Which runs were made from a photo: a run folder's prepare record names the pixel hash of the
photo it prepared (prepared/prepare.json, app/imaging), the same hash the document's picture
has when it is that photo."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np

from app.imaging.prepare_record import pixel_sha256
from app.imaging.prepared_folder import RECORD_FILE
from app.pipeline import PREPARED_DIR
from app.pipeline.api import PipelineAPI, RunSnapshot

log = logging.getLogger(__name__)

MAX_RECORD_BYTES = 1 << 20


class _PhotoHash:
    """The pixel hash of the last photo asked about (a big photo takes a while to hash); one
    tuple, replaced whole, as history scans ask from worker threads."""

    last: tuple[np.ndarray | None, str] = (None, "")


def photo_hash(photo: np.ndarray) -> str:
    known, digest = _PhotoHash.last
    if known is not photo:
        digest = pixel_sha256(photo)
        _PhotoHash.last = (photo, digest)
    return digest


def prepared_photo_hash(run_dir: Path) -> str | None:
    """The pixel hash of the photo a run prepared, or None (not prepared, not readable)."""
    record = run_dir / PREPARED_DIR / RECORD_FILE
    try:
        if record.stat().st_size > MAX_RECORD_BYTES:
            return None
        data = json.loads(record.read_text(encoding="utf-8"))
        digest = data["original"]["image_sha256"]
        expanded = data.get("expand")  # an outpainted run: the photo as given, not expanded
        if isinstance(expanded, dict) and expanded.get("source_sha256"):
            digest = expanded["source_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return digest if isinstance(digest, str) else None


def photo_runs(
    runs_dir: Path, photo: np.ndarray | None, current: RunSnapshot | None, pipeline: PipelineAPI
) -> list[RunSnapshot]:
    """The history strip's runs (oldest first): those prepared from `photo`, and `current`
    (the live snapshot) last when it belongs to the photo or there is none. Reads run
    folders and hashes the photo: the workspace calls it off the UI thread."""
    runs = runs_of_photo(runs_dir, photo, pipeline) if photo is not None else []
    if current is not None and (
        photo is None or prepared_photo_hash(Path(current.dir)) == photo_hash(photo)
    ):
        runs = [r for r in runs if Path(r.dir) != Path(current.dir)] + [current]
    return runs


def runs_of_photo(runs_dir: Path, photo: np.ndarray, pipeline: PipelineAPI) -> list[RunSnapshot]:
    """The runs prepared from `photo`, oldest first (a run that cannot be read is left out)."""
    wanted = photo_hash(photo)
    try:
        folders = [p for p in runs_dir.iterdir() if p.is_dir()]
    except OSError:
        return []
    found = []
    for folder in folders:
        if prepared_photo_hash(folder) != wanted:
            continue
        try:
            found.append(pipeline.snapshot(folder))
        except Exception as exc:
            log.info("Run %s left out of the history: %s", folder, exc)
    return sorted(found, key=lambda run: (run.created, str(run.dir)))
