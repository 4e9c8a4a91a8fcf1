"""What the canvas shows of generation: each step's preview blended into the photo in place
while a run diffuses, decoded steps and results full size, the result history, and "Use as new
image". It listens to the generation model's runners and never edits the document except
through "Use as new image" (one undoable step)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot
from PySide6.QtGui import QImage

from app.canvas.document import MaskDocument
from app.canvas.generated import PlacedFrame, RunPlacement, whole_frame
from app.canvas.qimage import qimage_to_array
from app.core.errors import StepwiseError
from app.imaging.io import load_image
from app.imaging.prepare_record import PrepareOptions
from app.jobs.background import LatestOnly
from app.pipeline import DECODED, PREPARED_DIR
from app.pipeline.api import RunSnapshot
from app.ui.kit.messages import describe_error
from app.ui.painter.canvas_view import CanvasView
from app.ui.workspace.area import WorkspaceArea
from app.ui.workspace.before_after import BeforeAfterKey
from app.ui.workspace.history_strip import HistoryEntry, entries_of, entry_thumbnail
from app.ui.workspace.match_line import color_match_line
from app.ui.workspace.png_settings import StepPicture, save_picture_dialog
from app.ui.workspace.run_photos import photo_hash, photo_runs

if TYPE_CHECKING:
    from app.jobs.call_runner import CallRunner
    from app.jobs.generation import GenerationModel

log = logging.getLogger(__name__)


def _blended(shown: Shown) -> bool:
    """A result whose run changed the generated colours at composite (colour match, seam)."""
    if shown.kind != "result" or shown.run is None:
        return False
    options = shown.run.spec.prepare or PrepareOptions()
    return options.color_match != "off" or options.seam_blend != "off"


def _tr(text: str) -> str:
    return QCoreApplication.translate("Workspace", text)


@dataclass(frozen=True)
class Shown:
    """What the generated layer holds: a frame of a run (model size, or whole for a result)."""

    run: RunSnapshot | None
    kind: str  # "preview" | "decoded" | "result"
    step: int
    frame: np.ndarray  # HxWx3 uint8 as the run made it
    caption: str
    path: Path | None = None  # the file it came from (results, decoded steps)

    @property
    def usable(self) -> bool:
        """A full-resolution decoded picture ("Use as new image" takes it), not a preview."""
        return self.kind in ("decoded", "result")


class WorkspaceController(QObject):
    """Binds the canvas's generated layer, the workspace bar and the history strip."""

    status = Signal(str)  # a line for the status bar
    picture_replaced = Signal()  # "Use as new image" made the shown picture the photo

    def __init__(self, area: WorkspaceArea, document: MaskDocument, parent: QObject | None = None):
        super().__init__(parent)
        self.area = area
        self.canvas: CanvasView = area.canvas
        self.document = document
        self.model: GenerationModel | None = None
        self.shown: Shown | None = None
        self.current_run: Path | None = None  # the model's run the layer follows
        self._placements: dict[Path, RunPlacement | None] = {}
        self._follow = True  # previews go on the canvas (until the user paints over them)
        self._preview_step = 0  # the newest step shown during this runner
        self._decoding: int | None = None
        self._result_shown = False  # a late preview of this run must not hide its result
        self.history_scans = LatestOnly("HistoryScan", self)
        # A result or step read from its file (an opened run, a history or step click) is
        # decoded off the UI thread (an 8192² PNG takes a second); the newest read wins.
        self.file_reads = LatestOnly("CanvasFile", self)
        bar = area.bar
        bar.raw.toggled.connect(lambda _on: self._redisplay())
        bar.color_match.toggled.connect(lambda _on: self._redisplay())
        bar.split.toggled.connect(lambda on: self.canvas.layer.set_split(0.5 if on else None))
        bar.use.clicked.connect(self.use_as_new_image)
        bar.save.clicked.connect(self.save_as)
        bar.back.clicked.connect(self.show_photo)
        area.history.entry_chosen.connect(self.show_entry)
        self.canvas.layer_dismissed.connect(self._dismissed)
        self.before_after = BeforeAfterKey(area, self.canvas.layer)  # `\` anywhere in the window
        document.image_changed.connect(self._photo_changed)

    # --- wiring -----------------------------------------------------------------------------

    def attach(self, model: GenerationModel) -> None:
        """Follows the generation model's runs (called once the Generate panel exists).
        Attaching the same model again changes nothing."""
        if self.model is model:
            return
        self.model = model
        model.runner_started.connect(self._bind_runner)
        model.run_changed.connect(self._run_changed)
        self._run_changed(model.run)

    def _run_changed(self, run: RunSnapshot | None) -> None:
        key = Path(run.dir) if run is not None else None
        if key != self.current_run:
            # Another run is current: nothing the layer showed stays under its caption; an
            # opened finished run shows its result.
            self.current_run = key
            self.file_reads.cancel()
            self.shown = None
            self._redisplay()
            result = run.result if run is not None and run.finished else None
            if run is not None and result is not None and Path(result).is_file():
                steps = run.steps or run.spec.steps
                self._show_file(run, "result", steps, Path(result), _tr("Result"))
        self.refresh_history()

    def _bind_runner(self, runner: CallRunner, kind: str) -> None:
        # The canvas shows previews at the photo's resolution: the worker must not shrink them
        # to the side panel's size.
        runner.set_preview_max_px(0)
        self.file_reads.cancel()  # a read for the run shown before must not cover this one's
        runner.run_ended.connect(lambda _kind: self.refresh_history())
        if kind == "decode":
            self._decoding = self.model.decoding if self.model is not None else None
            runner.result_loaded.connect(self._decoded_loaded)
            return
        self._follow = True
        self._preview_step = 0
        self._result_shown = False
        runner.preview_ready.connect(self.show_preview)
        runner.result_loaded.connect(self._result_loaded)

    # --- what arrives -----------------------------------------------------------------------

    @Slot(int, QImage)
    def show_preview(self, step: int, image: QImage) -> None:
        """A step's preview (the projection at 1/8, or a full frame) goes on the canvas."""
        self._show_step(step, image, "preview", _tr("Step {step} of {steps} · preview"))

    @Slot(int, str, QImage)
    def show_decoded_preview(self, step: int, png_path: str, image: QImage) -> None:
        """A step decoded in the background arrived: shown unless a newer step is on show."""
        caption = _tr("Step {step} of {steps} · decoded")
        self._show_step(step, image, "decoded", caption, Path(png_path))

    def _show_step(
        self, step: int, image: QImage, kind: str, caption: str, path: Path | None = None
    ) -> None:
        """A step's frame of the run on show, unless the result or a newer step is shown."""
        run = self.model.run if self.model is not None else None
        late = self._result_shown or step < self._preview_step
        if not self._follow or run is None or image.isNull() or late:
            return
        self._preview_step = step
        text = caption.format(step=step, steps=run.steps or run.spec.steps)
        self._show(Shown(run, kind, step, qimage_to_array(image), text, path))

    def show_step_preview(self, step: int, path: str) -> None:
        """A step's saved preview, chosen in the Run tab: on the canvas, blended in."""
        run = self.model.run if self.model is not None else None
        if run is None or not path:
            return
        self._follow = False  # looking back at a step: new previews do not push it away
        steps = run.steps or run.spec.steps
        caption = _tr("Step {step} of {steps} · preview").format(step=step, steps=steps)
        self._show_file(run, "preview", step, Path(path), caption)

    def _decoded_loaded(self, path: str, image: QImage) -> None:
        run = self.model.run if self.model is not None else None
        step = self._decoding or 0
        self._decoding = None
        if run is not None:
            caption = _tr("Step {step}, decoded").format(step=step)
            self._show_decoded(run, "decoded", step, Path(path), caption, image)

    def _result_loaded(self, path: str, image: QImage) -> None:
        model = self.model
        run = model.run if model is not None else None
        if model is not None and run is not None and self._follow:
            self._result_shown = True
            try:  # as it is now: the composite's record (what colour match did) included
                run = model.session.pipeline.snapshot(Path(run.dir))
            except Exception:
                log.info("Run %s re-read failed; shown as known", run.dir, exc_info=True)
            steps = run.steps or run.spec.steps
            self._show_decoded(run, "result", steps, Path(path), _tr("Result"), image)

    def _show_decoded(
        self, run: RunSnapshot, kind: str, step: int, path: Path, caption: str, image: QImage
    ) -> None:
        """A picture the runner decoded in its thread (full size: set_preview_max_px(0))."""
        if image.isNull():
            self._show_file(run, kind, step, path, caption)
            return
        self.file_reads.cancel()
        self._show(Shown(run, kind, step, qimage_to_array(image), caption, path))
        self.area.history.select_path(path)

    def show_entry(self, entry: HistoryEntry, *, at_once: bool = False) -> None:
        """A history thumbnail was clicked: that picture goes on the canvas (read in a worker;
        `at_once`: read now, for a caller that uses or saves it next)."""
        try:
            run = self._snapshot(entry.run_dir)
        except Exception as exc:
            self.status.emit(_tr("That run cannot be read: {reason}").format(reason=str(exc)))
            return
        self._follow = False  # looking back: new previews do not push this away
        self._show_file(run, entry.kind, entry.step, entry.path, entry.caption(), at_once)

    def _show_file(
        self,
        run: RunSnapshot,
        kind: str,
        step: int,
        path: Path,
        caption: str,
        at_once: bool = False,
    ) -> None:
        """`path` decoded in a worker, then shown, unless something else was shown or asked
        for meanwhile (another run, a newer click, the photo); `at_once`: decoded here."""

        def read() -> np.ndarray | Exception:
            try:
                return load_image(path)
            except (StepwiseError, OSError) as exc:  # a file gone or damaged: said, not shown
                return exc

        def deliver(frame: np.ndarray | Exception) -> None:
            if isinstance(frame, Exception):
                self.status.emit(describe_error(frame, path))
                return
            self._show(Shown(run, kind, step, frame, caption, path))
            self.area.history.select_path(path)

        if at_once:
            self.file_reads.cancel()
            deliver(read())
            return
        self.file_reads.request(read, deliver)

    # --- showing ----------------------------------------------------------------------------

    def _placement(self, run: RunSnapshot | None) -> RunPlacement | None:
        if run is None or run.spec.image is None:
            return None
        key = Path(run.dir)
        if key not in self._placements:
            try:
                self._placements[key] = RunPlacement.of_prepared(Path(key) / PREPARED_DIR)
            except (StepwiseError, OSError, ValueError) as exc:
                log.info("No placement for %s: %s", key, exc)
                self._placements[key] = None
        return self._placements[key]

    def placed(self, shown: Shown, *, raw: bool) -> tuple[PlacedFrame, bool]:
        """Where `shown` goes: (frame, standalone): through the run's prepare record
        (canvas/generated.py, the one placement rule), or alone for another photo's run."""
        placement = self._placement(shown.run)
        doc = self.document
        fits = (
            placement is not None
            and not doc.is_empty()
            and (doc.width, doc.height) == tuple(placement.photo_size)
            and photo_hash(doc.image) == placement.photo_sha256
        )
        if not fits or placement is None:
            return whole_frame(shown.frame), True
        if shown.kind == "result":
            decoded = Path(shown.run.dir) / DECODED if shown.run else None
            # Raw: the decoded picture as the model made it; colour match unchecked: the result
            # composited again without it (result.png has the run's colour match in it).
            box = self.area.bar.color_match
            plain = self.area.bar.matched and not box.isChecked()
            if (raw or plain) and decoded is not None:
                try:
                    picture = load_image(decoded)
                    if raw:
                        return placement.raw(picture), False
                    return placement.composited(picture), False
                except (StepwiseError, OSError):
                    pass
            try:
                return placement.result(shown.frame), False
            except ValueError:  # not the run's frame (a damaged run): shown on its own
                return whole_frame(shown.frame), True
        return (placement.raw(shown.frame) if raw else placement.composited(shown.frame)), False

    def _show(self, shown: Shown) -> None:
        self.shown = shown
        self._redisplay()

    def _redisplay(self) -> None:
        shown = self.shown
        layer = self.canvas.layer
        if shown is None:
            layer.clear()
            self.area.bar.set_shown("", has_photo=not self.document.is_empty())
            return
        try:
            frame, standalone = self.placed(shown, raw=self.area.bar.raw.isChecked())
        except (StepwiseError, ValueError) as exc:
            log.warning("Cannot place %s of %s: %s", shown.kind, shown.run, exc)
            frame, standalone = whole_frame(shown.frame), True
        layer.show(frame, shown.caption, standalone=standalone)
        record = shown.run.color_match if shown.run is not None else None
        self.area.bar.set_shown(
            shown.caption, has_photo=not standalone, usable=shown.usable,
            blended=_blended(shown), match_line=color_match_line(record),
        )  # fmt: skip

    def show_photo(self) -> None:
        """Back to the photo and its mask; previews stay off until the next run."""
        self._follow = False
        self.file_reads.cancel()
        self.shown = None
        self.area.history.select_path(None)
        self._redisplay()

    def _dismissed(self) -> None:
        self._follow = False
        self.file_reads.cancel()
        self.shown = None
        self.area.bar.set_shown("", has_photo=not self.document.is_empty())

    # --- the picture ------------------------------------------------------------------------

    def shown_picture(self) -> np.ndarray | None:
        """The whole picture on show, blended into the run's frame (the photo, or the expanded
        canvas): what Use / Save take."""
        if self.shown is None:
            return None
        frame, standalone = self.placed(self.shown, raw=False)
        if standalone or frame.at == frame.canvas:
            return frame.pixels
        placement = self._placement(self.shown.run)
        if placement is not None:
            return placement.whole(frame)
        return frame.whole(self.document.image)

    def use_as_new_image(self) -> bool:
        shown = self.shown
        if shown is None or not shown.usable:
            return False  # a preview is a sketch of the step, never the photo
        picture = self.shown_picture()
        if picture is None:
            return False
        title = self._picture_title(shown)
        self.document.use_as_picture(_tr("Use as new image"), picture, shown.path, title)
        self.shown = None
        self._follow = False
        self._redisplay()
        self.status.emit(_tr("The picture is now the photo. Ctrl+Z brings the old one back."))
        self.picture_replaced.emit()
        return True

    def _picture_title(self, shown: Shown) -> str:
        """The name a used picture goes by: the photo's, the seed and (a decoded step) the
        step, never the run's "result.png"."""
        stem = Path(self.document.image_title or "picture").stem
        seed = shown.run.spec.seed if shown.run is not None else None
        name = stem if seed is None else f"{stem}_seed{seed}"
        if shown.kind == "decoded":
            name += f"_step{shown.step}"
        return name + ".png"

    def suggested_name(self) -> str:
        shown = self.shown
        photo, title = self.document.image_path, self.document.image_title
        stem = Path(title).stem if title is not None and shown is not None else "stepwise"
        what = "result" if shown is None or shown.kind == "result" else f"step{shown.step}"
        if shown is not None and shown.kind != "result":
            what += f"-{shown.kind}"  # a preview (or a decoded step), not the run's end
        folder = photo.parent if photo is not None and photo.parent.is_dir() else Path.home()
        return str(folder / f"{stem}_{what}.png")

    def save_as(self) -> Path | None:
        """Save as…: the picture shown, blended into the photo, with its run's settings."""
        picture = self.shown_picture()
        if picture is None or self.shown is None:
            return None
        shown = self.shown
        spec = shown.run.spec if shown.run is not None else None
        step = None if shown.kind == "result" else StepPicture(shown.kind, shown.step)
        saved = save_picture_dialog(self.area, picture, spec, self.suggested_name(), step)
        if saved is not None:
            self.status.emit(_tr("Saved {path} with its settings").format(path=saved))
        return saved

    # --- history ----------------------------------------------------------------------------

    def _snapshot(self, run_dir: Path) -> RunSnapshot:
        if self.model is None:
            raise RuntimeError("no generation model")
        current = self.model.run
        if current is not None and Path(current.dir) == Path(run_dir):
            return current
        return self.model.session.pipeline.snapshot(Path(run_dir))

    def _photo_changed(self) -> None:
        # Another photo (opened, or back by undo): what was shown belongs to the old one.
        self.file_reads.cancel()
        self.shown = None
        self._redisplay()
        self.refresh_history()

    def refresh_history(self) -> None:
        """This picture's runs (oldest first, the current run last) as history entries: the
        run folders are scanned (and the photo hashed) off the UI thread; a scan overtaken by a
        newer one (another run, another photo) is dropped."""
        model = self.model
        if model is None:
            return
        session, current = model.session, model.run
        photo = None if self.document.is_empty() else self.document.image
        known = set(self.area.history.entries())  # these have their thumbnails

        def scan() -> tuple[list[HistoryEntry], dict[HistoryEntry, QImage | None]]:
            runs = photo_runs(session.paths.runs_dir, photo, current, session.pipeline)
            entries = [entry for run in runs for entry in entries_of(run)]
            return entries, {e: entry_thumbnail(e.path) for e in entries if e not in known}

        self.history_scans.request(scan, self._history_scanned)

    def _history_scanned(self, found: tuple[list[HistoryEntry], dict]) -> None:
        entries, thumbnails = found
        self.area.history.set_entries(entries, thumbnails)
        self.area.history.select_path(self.shown.path if self.shown is not None else None)

    def shutdown(self) -> None:
        """A scan or read in flight is dropped and waited for (the application quits)."""
        self.history_scans.stop()
        self.file_reads.stop()
