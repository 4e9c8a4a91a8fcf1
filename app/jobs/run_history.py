"""The run history the UI lists: one `RunEntry` per run folder (state, step k of N, date, prompt,
models, the newest picture of it), listed off the UI thread by `RunLister`, and the OS trash
(Qt's) for discarding a run folder."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from PySide6.QtCore import QFile, QObject, Qt, Signal
from PySide6.QtGui import QImage

from app.jobs.workers import AppThread
from app.pipeline import CHECKPOINT_DIR, STEPS_DIR, preview_step
from app.pipeline.api import PipelineAPI, RunSnapshot
from app.pipeline.failures import Failure

log = logging.getLogger(__name__)

THUMBNAIL_PX = 96
# The decoded steps a run folder holds (the layout of ARCHITECTURE.md "Run folders").
_DECODED = re.compile(r"step_(\d+)\.png$")


def _decoded_step(name: str) -> int | None:
    match = _DECODED.search(name)
    return int(match.group(1)) if match else None


class RunStatus(StrEnum):
    FINISHED = "finished"  # result.png exists
    FAILED = "failed"  # stopped with a failure; resumable when something is done
    STOPPED = "stopped"  # suspended or cancelled with work to continue
    NEW = "new"  # nothing done yet


@dataclass(frozen=True)
class RunEntry:
    """One run as the unfinished-runs dialog and the Runs panel show it."""

    dir: Path
    created: str  # ISO 8601, UTC
    prompt: str
    status: RunStatus
    step: int  # the last finished step
    steps: int | None
    models: tuple[str, ...]  # file names: diffusion, text encoder, VAE
    size: tuple[int, int]  # what the engine is given (width, height)
    seed: int
    resumable: bool
    result: Path | None
    failure: Failure | None  # why it stopped: kind, template and values (the UI renders it)
    picture: Path | None  # the newest picture: the result, a decoded step or a step preview
    photo: str | None = None  # the name of the photo the run was made of, where recorded
    thumbnail: QImage | None = field(default=None, compare=False, repr=False)

    @property
    def unfinished(self) -> bool:
        return self.resumable and self.result is None


def newest_picture(snap: RunSnapshot) -> Path | None:
    """The result, else the newest decoded step or step preview (a decode wins a tie)."""
    if snap.result is not None and snap.result.is_file():
        return snap.result
    best: tuple[int, int, Path] | None = None
    for folder, step_of, rank in (
        (snap.dir / CHECKPOINT_DIR, preview_step, 0),
        (snap.dir / STEPS_DIR, _decoded_step, 1),
    ):
        try:
            found = [(step_of(p.name), p) for p in folder.iterdir()]
        except OSError:
            continue
        for step, path in found:
            if step is None:
                continue
            if step <= max(snap.last_completed_step, 0) or rank == 1:
                key = (step, rank, path)
                if best is None or key[:2] > best[:2]:
                    best = key
    return best[2] if best is not None else None


def entry_of(snap: RunSnapshot, *, thumbnail: bool = False) -> RunEntry:
    """The entry for a run; `thumbnail` also loads its picture small (fine off the UI thread)."""
    if snap.finished:
        status = RunStatus.FINISHED
    elif snap.failure is not None:
        status = RunStatus.FAILED
    elif snap.resumable:
        status = RunStatus.STOPPED
    else:
        status = RunStatus.NEW
    models = snap.spec.models
    size = snap.model_input
    picture = newest_picture(snap)
    return RunEntry(
        dir=snap.dir,
        created=snap.created,
        prompt=snap.spec.prompt,
        status=status,
        step=snap.last_completed_step,
        steps=snap.steps or snap.spec.steps,
        models=tuple(Path(m).name for m in (models.diffusion, models.llm, models.vae) if m),
        size=(size.width, size.height) if size is not None else (snap.spec.width, snap.spec.height),
        seed=snap.spec.seed,
        resumable=snap.resumable,
        result=snap.result,
        failure=snap.failure,
        picture=picture,
        photo=snap.photo_name,
        thumbnail=load_thumbnail(picture) if thumbnail and picture is not None else None,
    )


def load_thumbnail(path: Path, px: int = THUMBNAIL_PX) -> QImage | None:
    image = QImage(str(path))
    if image.isNull():
        return None
    return image.scaled(
        px, px, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
    )


def list_entries(pipeline: PipelineAPI, *, unfinished_only: bool = False) -> list[RunEntry]:
    """Every run, newest first (or only those with something to resume), with thumbnails."""
    out = []
    for snap in pipeline.list_runs():
        if unfinished_only and not (snap.resumable and not snap.finished):
            continue
        out.append(entry_of(snap, thumbnail=True))
    return out


class RunLister(AppThread):
    """Lists the runs off the UI thread (many run folders are many file reads)."""

    listed = Signal(list)  # list[RunEntry]
    list_failed = Signal(str)

    def __init__(
        self, pipeline: PipelineAPI, *, unfinished_only: bool, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("RunLister")
        self._pipeline = pipeline
        self._unfinished_only = unfinished_only

    def run(self) -> None:  # QThread entry point
        try:
            entries = list_entries(self._pipeline, unfinished_only=self._unfinished_only)
        except Exception as exc:  # no list rather than no start
            log.warning("Could not list the runs: %s", exc)
            self.list_failed.emit(str(exc))
            return
        self.listed.emit(entries)


def move_to_trash(folder: Path) -> bool:
    """Moves `folder` to the OS trash (Qt's: the freedesktop trash, the Windows recycle bin,
    the macOS Trash); False when the platform has none or refuses."""
    try:
        moved = QFile.moveToTrash(str(folder))
        return bool(moved[0] if isinstance(moved, tuple) else moved)
    except (OSError, RuntimeError, TypeError) as exc:  # pragma: no cover - platform quirks
        log.warning("Moving %s to the trash failed: %s", folder, exc)
        return False
