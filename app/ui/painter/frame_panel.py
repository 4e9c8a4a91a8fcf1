"""The context area and the canvas expansion: shown on the canvas, set by the Context tool and
the Expand canvas… dialog, held by the job form (its `context` and `expand` fields)."""

from __future__ import annotations

import weakref

import numpy as np
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.canvas.document import MaskDocument
from app.canvas.tools import PaintState, ToolKind
from app.core.errors import InputError
from app.imaging.frame import Expansion, parse_context, parse_expand
from app.imaging.geometry import Rect, Size
from app.jobs.job_form import JobForm
from app.pipeline.job.params import CONTEXT, EXPAND, ONLY_MASKED
from app.ui.painter.canvas_view import CanvasView
from app.ui.painter.expand_dialog import ExpandCanvasDialog


def _context(text: str) -> Rect | None:
    try:
        return parse_context(text)
    except InputError:
        return None  # a bad value is refused (and explained) when the run starts


def _expansion(text: str) -> Expansion | None:
    try:
        return parse_expand(text)
    except InputError:
        return None


class FramePanel(QWidget):
    """Context area (with Clear) and canvas expansion (with Expand canvas… and Reset)."""

    def __init__(
        self,
        form: JobForm,
        document: MaskDocument,
        view: CanvasView,
        state: PaintState,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.form, self.document, self.view, self.state = form, document, view, state
        box = QGroupBox(self.tr("What the model sees"))
        layout = QFormLayout(box)
        self.context_label = QLabel()
        self.context_label.setWordWrap(True)
        self.context_button = QPushButton(self.tr("Draw"))
        self.context_button.setToolTip(
            self.tr(
                "Drag a rectangle on the canvas: with 'Only the masked area' the model sees it "
                "as well as the mask's box, so a small edit can see the whole face"
            )
        )
        self.context_button.clicked.connect(lambda: state.set_tool(ToolKind.CONTEXT))
        self.clear_context_button = QPushButton(self.tr("Clear"))
        self.clear_context_button.clicked.connect(lambda: form.set(CONTEXT, ""))
        layout.addRow(self.tr("Context"), self.context_label)
        row = QHBoxLayout()
        row.addWidget(self.context_button)
        row.addWidget(self.clear_context_button)
        layout.addRow(row)

        self.expand_action = QAction(self.tr("Expand canvas…"), self)
        self.expand_action.setToolTip(
            self.tr("Outpaint: add pixels on any side; the new area is generated")
        )
        self.expand_action.triggered.connect(self.ask_expansion)
        self.expand_label = QLabel()
        self.expand_label.setWordWrap(True)
        self.expand_button = QPushButton(self.tr("Expand…"))
        self.expand_button.setToolTip(self.expand_action.toolTip())
        self.expand_button.clicked.connect(self.expand_action.trigger)
        self.reset_expand_button = QPushButton(self.tr("Reset"))
        self.reset_expand_button.clicked.connect(lambda: form.set(EXPAND, ""))
        layout.addRow(self.tr("Canvas"), self.expand_label)
        row = QHBoxLayout()
        row.addWidget(self.expand_button)
        row.addWidget(self.reset_expand_button)
        layout.addRow(row)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(box)

        form.signal(CONTEXT).connect(self.sync)
        form.signal(EXPAND).connect(self.sync)
        view.context_drawn.connect(self.context_drawn)
        # Another picture (opened, undone, or a result used as the new image): a rectangle
        # or an expansion chosen for the old one does not apply to it; a picture that comes
        # back (undo / redo of Use as new image) gets its own back.
        self._picture: np.ndarray = document.image
        self._frames: dict[int, tuple[weakref.ref[np.ndarray], str, str]] = {}
        document.image_changed.connect(self._picture_changed)
        self.sync()

    def _picture_changed(self) -> None:
        old, new = self._picture, self.document.image
        self._frames[id(old)] = (weakref.ref(old), self.form.get(CONTEXT), self.form.get(EXPAND))
        # A picture no longer held anywhere (gone from the history) is forgotten here too.
        self._frames = {k: v for k, v in self._frames.items() if v[0]() is not None}
        self._picture = new
        kept = self._frames.get(id(new))
        if kept is not None and kept[0]() is new:
            self.form.set(CONTEXT, kept[1])
            self.form.set(EXPAND, kept[2])
            self.sync()
        else:
            self.forget()

    def context_drawn(self, text: str) -> None:
        self.form.set(CONTEXT, text)
        if text:  # the context area is what 'only the masked area' generates
            self.form.set(ONLY_MASKED, True)

    def forget(self) -> None:
        self.form.set(CONTEXT, "")
        self.form.set(EXPAND, "")
        self.sync()

    def ask_expansion(self) -> None:
        if self.document.is_empty():
            return
        size = Size(self.document.width, self.document.height)
        dialog = ExpandCanvasDialog(size, _expansion(self.form.get(EXPAND)), self)
        if dialog.exec() == ExpandCanvasDialog.DialogCode.Accepted:
            expansion = dialog.expansion()
            self.form.set(EXPAND, "" if expansion is None else str(expansion))

    def sync(self, *_: object) -> None:
        context = _context(self.form.get(CONTEXT))
        expansion = _expansion(self.form.get(EXPAND))
        self.view.set_frame(context, expansion)
        if context is None:
            self.context_label.setText(self.tr("The mask's box"))
        else:
            self.context_label.setText(
                self.tr("{w}×{h} px at ({x}, {y})").format(
                    w=context.width, h=context.height, x=context.x, y=context.y
                )
            )
        self.clear_context_button.setEnabled(context is not None)
        has_photo = not self.document.is_empty()
        if expansion is None or not has_photo:
            self.expand_label.setText(self.tr("Not expanded"))
        else:
            grown = expansion.grown((self.document.width, self.document.height))
            self.expand_label.setText(
                self.tr("{w}×{h} px (+{l} left, +{t} top, +{r} right, +{b} bottom)").format(
                    w=grown.width,
                    h=grown.height,
                    l=expansion.left,
                    t=expansion.top,
                    r=expansion.right,
                    b=expansion.bottom,
                )
            )
        self.reset_expand_button.setEnabled(expansion is not None)
        self.expand_action.setEnabled(has_photo)
        self.expand_button.setEnabled(has_photo)
