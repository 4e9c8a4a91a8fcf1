"""Prepare for inference, preview, export, and apply a generated result (via imaging.prepare)."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from app.canvas import files
from app.canvas import preparation as prep
from app.canvas.document import MaskDocument
from app.core.errors import StepwiseError
from app.imaging.geometry import Size
from app.imaging.prepare import prepare
from app.jobs.model_input import ModelInputSize
from app.pipeline.job.params import HEIGHT, MASK_MODE, WIDTH
from app.pipeline.job.spec import spec_from_values
from app.ui.kit.file_filters import image_file_filter, png_file_filter
from app.ui.kit.messages import show_error
from app.ui.prepare.image_dialogs import ResultDialog
from app.ui.prepare.panel import PreparePanel
from app.ui.prepare.preview import PreparePreviewDialog
from app.ui.words.sentences import tidy

log = logging.getLogger(__name__)

LARGER_NOTE_RATIO = 1.05  # model input pixels over the photo's: above it, the panel says so


class _WaitCursor:
    def __enter__(self) -> None:
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)

    def __exit__(self, *exc: object) -> None:
        QApplication.restoreOverrideCursor()


class PrepareController(QObject):
    """Turns the document plus the panel's options into a Prepared input, and back."""

    def __init__(self, document: MaskDocument, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self.document = document
        self.dialog_parent = dialog_parent
        self.panel: PreparePanel | None = None
        self.last_prepared: prep.Prepared | None = None
        self.last_export_dir: Path | None = None
        self.model_input: ModelInputSize | None = None  # the size the model gets: listened to

    def set_panel(self, panel: PreparePanel) -> None:
        self.panel = panel
        panel.options_changed.connect(self.update_summary)
        panel.form.signal(WIDTH).connect(self.update_summary)  # the size caps the target
        panel.form.signal(HEIGHT).connect(self.update_summary)
        self.document.image_changed.connect(self.update_summary)
        self.document.history_changed.connect(self.update_summary)  # a finished stroke
        # Until the generation model's owner of the size is followed (the painter alone), one
        # over the document: the same rule (jobs/model_input.py).
        doc = self.document
        own = ModelInputSize(
            panel.form.values,
            lambda: None if doc.is_empty() else (doc.width, doc.height),
            doc.facts.box,
            self,
        )
        panel.form.changed.connect(own.update)
        doc.image_changed.connect(own.update)
        doc.history_changed.connect(own.update)
        self.follow(own)
        # A new picture (or a result painted on) needs a fresh prepare.
        self.document.image_changed.connect(self.forget)
        self.update_summary()

    def forget(self) -> None:
        self.last_prepared = None

    def options(self) -> prep.PrepareOptions:
        p = self.panel
        assert p is not None
        options = spec_from_values(p.form.values()).prepare
        assert options is not None
        return options  # the job form's options, through the one translation

    def follow(self, owner: ModelInputSize) -> None:
        """ "Model input W×H" follows `owner` (the generation model's, once it exists): the
        Context tool, Expand canvas, only masked and the mask change it there."""
        if self.model_input is not None and self.model_input is not owner:
            self.model_input.changed.disconnect(self._model_input_changed)
        self.model_input = owner
        owner.changed.connect(self._model_input_changed)
        self.update_summary()

    def _model_input_changed(self, _size: object) -> None:
        self.update_summary()

    def model_input_size(self) -> Size | None:
        """What the model will get for the document as it is now (None: no picture)."""
        if self.document.is_empty() or self.model_input is None:
            return None
        self.model_input.update()  # a no-op when nothing changed; signals when it did
        return self.model_input.size

    def update_summary(self) -> None:
        if self.panel is None:
            return
        size = self.model_input_size()
        if size is None:
            self.panel.set_summary(self.tr("Open a picture to prepare it."))
            self.panel.set_size_note("")
            return
        text = self.tr("Model input: {w}×{h} px").format(w=size.width, h=size.height)
        opts = self.options()
        if opts.only_masked and opts.masked_target:
            text += " " + self.tr("(the masked area scaled to about {t}×{t} px)").format(
                t=opts.masked_target
            )
        elif opts.only_masked:
            text += " " + self.tr("(the masked area at its own size)")
        self.panel.set_summary(text)
        self.panel.set_size_note(self._larger_than_photo(size) if opts.only_masked else "")

    def _larger_than_photo(self, size: Size) -> str:
        """Said when the masked area, scaled to the target, gives the model more pixels than
        the whole photo has (slower, more memory); "" otherwise."""
        doc = self.document
        ratio = (size.width * size.height) / max(1, doc.width * doc.height)
        if ratio <= LARGER_NOTE_RATIO:
            return ""
        return self.tr(
            "The model input, {w}×{h} px, is {k}× the pixels of the whole photo ({pw}×{ph} "
            "px): slower and more memory. A smaller Target size keeps it smaller."
        ).format(w=size.width, h=size.height, k=f"{ratio:.1f}", pw=doc.width, ph=doc.height)

    def prepare(self) -> prep.Prepared | None:
        """Prepares the current document, or explains in a message box why it cannot."""
        doc = self.document
        if doc.is_empty():
            return None
        if doc.facts.box() is None and not self.options().expand.strip():
            # (An expanded canvas repaints its new area without a mask.)
            # Checked here as well as in prepare() so that the message can be translated.
            QMessageBox.warning(
                self.dialog_parent,
                self.tr("The mask is empty"),
                self.tr(
                    "Paint the area to repaint first: white in the mask, at least 50 % strength "
                    "(or load a mask)."
                ),
            )
            return None
        try:
            with _WaitCursor():
                prepared = prepare(doc.image, doc.mask, self.options())
        except (StepwiseError, ValueError, MemoryError) as exc:
            show_error(self.dialog_parent, self.tr("Could not prepare the picture"), exc)
            return None
        self.last_prepared = prepared
        return prepared

    def show_preview(self) -> None:
        prepared = self.prepare()
        if prepared is None:
            return
        assert prepared.mask is not None
        mode = self.panel.form.get(MASK_MODE) if self.panel is not None else "soft"
        dialog = PreparePreviewDialog(
            prepared, self.describe(prepared), self.dialog_parent, mask_mode=mode
        )
        dialog.export_requested.connect(lambda: self._export(prepared))
        dialog.exec()

    def describe(self, prepared: prep.Prepared) -> str:
        record = prepared.record
        w, h = record.input_size
        align = {
            "pad": self.tr("padding"),
            "crop": self.tr("cropping"),
            "scale": self.tr("scaling"),
        }[record.align.mode]
        fill = {
            "grey": self.tr("50 % grey"),
            "blur": self.tr("a blur of the surroundings"),
            "none": self.tr("the original pixels"),
            "telea": self.tr("an inpainting of its edges (Telea)"),
            "ns": self.tr("an inpainting of its edges (Navier–Stokes)"),
            "border": self.tr("the nearest colours of its border"),
        }[record.fill]
        text = self.tr(
            "The model gets {w}×{h} px, aligned to 16 px by {align}; the masked area "
            "is filled with {fill}. The result is blended back with a {f} px "
            "feather."
        ).format(w=w, h=h, align=align, fill=fill, f=record.feather_px)
        if record.expansion is not None and record.source_size is not None:
            e, grown = record.expansion, record.original_size
            text += " " + self.tr(
                "The canvas is expanded from {sw}×{sh} to {w}×{h} px (+{l} left, +{t} top, "
                "+{r} right, +{b} bottom); the new area is generated."
            ).format(
                sw=record.source_size.width, sh=record.source_size.height, w=grown.width,
                h=grown.height, l=e.left, t=e.top, r=e.right, b=e.bottom,
            )  # fmt: skip
        if record.only_masked:
            r = record.region
            text += " " + self.tr("Only the area {rw}×{rh} at ({rx}, {ry}) is generated.").format(
                rw=r.width, rh=r.height, rx=r.x, ry=r.y
            )
        if record.scaled is not None:
            factor = record.scaled.width / record.region.width
            text += " " + self.tr(
                "It is scaled ×{k} to {sw}×{sh} px for the model and back for the composite."
            ).format(k=f"{factor:.2f}", sw=record.scaled.width, sh=record.scaled.height)
        options = prepared.options
        if options.color_match == "on":
            text += " " + self.tr(
                "The model's colour drift is taken out of it (strength {s})."
            ).format(s=f"{options.color_match_strength:.2f}")
        if options.seam_blend == "poisson":
            text += " " + self.tr("The seam is blended in the gradient domain (Poisson).")
        for note in prepared.notes:
            text += "\n" + note
        return tidy(text)

    def export(self) -> None:
        prepared = self.prepare()
        if prepared is not None:
            self._export(prepared)

    def _export(self, prepared: prep.Prepared) -> bool:
        start = str(
            self.last_export_dir
            or (self.document.image_path.parent if self.document.image_path else "")
        )
        folder = QFileDialog.getExistingDirectory(
            self.dialog_parent, self.tr("Export prepared input to folder"), start
        )
        if not folder:
            return False
        return self.export_to(Path(folder), prepared)

    def export_to(self, folder: Path, prepared: prep.Prepared) -> bool:
        try:
            with _WaitCursor():
                prep.export(folder, prepared)
        except (StepwiseError, OSError) as exc:
            show_error(self.dialog_parent, self.tr("Could not export"), exc, folder)
            return False
        self.last_export_dir = folder
        QMessageBox.information(
            self.dialog_parent,
            self.tr("Exported"),
            self.tr("Wrote input.png, mask.png and prepare.json to {0}").format(folder),
        )
        return True

    def apply_result(self) -> None:
        """Asks for a generated image and composites it into the original.

        When the image sits in an exported folder (next to its prepare.json), that folder's
        record is used, so a result generated in another session still maps back exactly;
        otherwise the current picture and mask are prepared with the panel's options.
        """
        if self.document.is_empty():
            return
        start = str(self.last_export_dir or "")
        path, _ = QFileDialog.getOpenFileName(
            self.dialog_parent, self.tr("Choose the generated image"), start, image_file_filter()
        )
        if not path:
            return
        chosen = Path(path)
        source: prep.Prepared | Path | None
        if prep.is_prepared_folder(chosen.parent):
            source = chosen.parent
        else:
            source = self.last_prepared or self.prepare()
        if source is not None:
            self.apply_result_file(chosen, source)

    def apply_result_file(self, path: Path, source: prep.Prepared | Path) -> np.ndarray | None:
        """Composites the generated picture at `path`; `source` is a Prepared or its folder."""
        title = self.tr("Could not apply the result")
        try:
            with _WaitCursor():
                generated = files.read_picture(path)
                expected = prep.input_size_of(source)
                size = (generated.shape[1], generated.shape[0])
                result = None
                if size == tuple(expected):
                    # The panel's colour match and seam blend (not part of the record).
                    result = prep.composite(source, generated, self.options().blend)
        except (StepwiseError, OSError, ValueError, MemoryError) as exc:
            show_error(self.dialog_parent, title, exc, path)
            return None
        if result is None:
            text = self.tr(
                "{file} is {gw}×{gh} px, but the prepared input is {w}×{h} px. Choose "
                "the image generated from this prepared input."
            ).format(file=path.name, gw=size[0], gh=size[1], w=expected.width, h=expected.height)
            show_error(self.dialog_parent, title, text)
            return None
        self.show_result(result, path)
        return result

    def show_result(self, result: np.ndarray, source: Path) -> None:
        details = self.tr("{0} blended into the original with the soft mask.").format(source.name)
        dialog = ResultDialog(result, details, self.dialog_parent)
        dialog.save_requested.connect(lambda: self._save_result(result))
        dialog.use_requested.connect(lambda: self._use_result(result, dialog))
        dialog.exec()

    def _use_result(self, result: np.ndarray, dialog: ResultDialog) -> None:
        if result.shape[:2] != self.document.mask.shape:
            show_error(
                dialog,
                self.tr("Cannot paint on this result"),
                self.tr("The result belongs to a picture of another size; save it instead."),
            )
            return
        self.document.replace_image(result)
        dialog.accept()

    def _save_result(self, result: np.ndarray) -> None:
        suggested = ""
        if self.document.image_path is not None:
            image = self.document.image_path
            suggested = str(image.with_name(f"{image.stem}_result.png"))
        path, _ = QFileDialog.getSaveFileName(
            self.dialog_parent, self.tr("Save Result"), suggested, png_file_filter()
        )
        if not path:
            return
        target = Path(path)
        if target.suffix.lower() != ".png":
            target = target.with_suffix(".png")
        try:
            files.write_picture(target, result)
        except (StepwiseError, OSError) as exc:
            show_error(self.dialog_parent, self.tr("Could not save the result"), exc, target)
