"""The workspace: the canvas with a bar above it (what is shown, raw frame, the result with or
without colour match, before / after split, Use as new image, Save as…) and the result
history below it."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.ui.painter.canvas_view import CanvasView
from app.ui.workspace.history_strip import ResultHistoryStrip


def _tr(text: str) -> str:
    return QCoreApplication.translate("Workspace", text)


class CaptionLabel(QLabel):
    """The bar's caption: it yields its width to the bar's controls, but never below what the
    photo's own caption needs ("The photo" read "The phot" with Windows' fonts, issue 37); a
    longer caption ends in "…" where it does not fit, and then the whole of it leads the
    tooltip ("Step 2 of 4 · pre" lost the word that says it is no result)."""

    ELIDED = "elided"  # the Qt property tests/ui/clipping.py reads: "…" drawn, text in the tip

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._explanation = ""

    def setToolTip(self, tip: str) -> None:
        self._explanation = tip
        self._update_tip()

    def shown_text(self) -> str:
        """The caption as drawn: the whole text, or its start and "…" where it does not fit."""
        room = self.contentsRect().width() - 2 * self.margin()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room)

    def _update_tip(self) -> None:
        elided = self.shown_text() != self.text()
        self.setProperty(self.ELIDED, elided)
        tip = f"{self.text()}\n{self._explanation}" if elided else self._explanation
        super().setToolTip(tip)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._update_tip()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_tip()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        room = self.contentsRect().adjusted(self.margin(), 0, -self.margin(), 0)
        self.style().drawItemText(
            painter,
            room,
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            self.shown_text(),
            self.foregroundRole(),
        )

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        margins = self.contentsMargins()
        needed = self.fontMetrics().horizontalAdvance(photo_caption()) + 2 * self.margin()
        return QSize(needed + margins.left() + margins.right(), hint.height())

    def sizeHint(self) -> QSize:
        return self.minimumSizeHint()


def photo_caption() -> str:
    return _tr("The photo")


class WorkspaceBar(QWidget):
    """One row over the canvas; enabled only while a generated picture is shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workspace_bar")
        self.caption = CaptionLabel(self)
        self.caption.setObjectName("workspace_caption")
        self.caption.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.caption.setToolTip(
            _tr("Previews and results appear here, blended into the photo, as they come.")
        )
        self.raw = QCheckBox(_tr("Raw frame"), self)
        self.raw.setObjectName("workspace_raw")
        self.raw.setToolTip(_tr("Show the frame as the model made it, not blended into the photo"))
        self.color_match = QCheckBox(_tr("Colour match"), self)
        self.color_match.setObjectName("workspace_color_match")
        self.color_match.setChecked(True)
        self._match_tip = _tr(
            "Uncheck to see the result as generated, without its colour match and seam blend"
        )
        self.color_match.setToolTip(self._match_tip)
        # Enabled only for a result whose run used colour match or seam blend.
        self.matched = True
        self.split = QCheckBox(_tr("Before / after"), self)
        self.split.setObjectName("workspace_split")
        self.split.setToolTip(
            _tr("A slider on the canvas: the photo left of it, the new picture right of it")
        )
        self.use = QPushButton(_tr("Use as new image"), self)
        self.use.setObjectName("workspace_use")
        self.use.setToolTip(
            _tr("The picture shown becomes the photo to paint on and inpaint again (Ctrl+Z undoes)")
        )
        self.save = QPushButton(_tr("Save as…"), self)
        self.save.setObjectName("workspace_save")
        self.save.setToolTip(_tr("Save the picture shown as PNG, its settings inside"))
        self.back = QPushButton(_tr("Show photo"), self)
        self.back.setObjectName("workspace_close")
        self.back.setToolTip(_tr("Back to the photo and its mask (hold \\ for a quick look)"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(self.caption, 1)
        for widget in (self.raw, self.color_match, self.split, self.use, self.save, self.back):
            layout.addWidget(widget)
        self.set_shown("", has_photo=False)

    def set_shown(
        self,
        caption: str,
        *,
        has_photo: bool,
        usable: bool = True,
        blended: bool = False,
        match_line: str = "",
    ) -> None:
        """`caption` of the generated picture shown, or "" for the photo alone; `usable`: it is
        a full-resolution decoded picture (a result or a decoded step), which "Use as new
        image" may make the photo (never a step's preview); `blended`: a result whose run
        used colour match or seam blend (only then does "Colour match" mean anything);
        `match_line`: what its colour match did (match_line.py), shown in the tooltip."""
        shown = bool(caption)
        # Short: the bar shares its row with six controls (the explanation is the tooltip).
        self.caption.setText(caption if shown else photo_caption())
        for widget in (self.save, self.back):
            widget.setEnabled(shown)
        self.use.setEnabled(shown and usable)
        self.raw.setEnabled(shown and has_photo)
        # Ticked exactly while it means something: what is shown has the run's colour match in it.
        matched = shown and has_photo and blended
        if matched != self.matched:
            self.matched = matched
            self.color_match.setEnabled(matched)
            blocked = self.color_match.blockSignals(True)
            self.color_match.setChecked(matched)
            self.color_match.blockSignals(blocked)
        self.split.setEnabled(shown and has_photo)
        tip = self._match_tip + ("\n" + match_line if matched and match_line else "")
        self.color_match.setToolTip(tip)


class WorkspaceArea(QWidget):
    """The main window's central widget: bar, canvas, history."""

    def __init__(self, canvas: CanvasView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workspace")
        self.canvas = canvas
        self.bar = WorkspaceBar(self)
        # Always in its place, empty or not: the canvas does not shrink (and its picture jump)
        # when the first entry appears.
        self.history = ResultHistoryStrip(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.bar)
        layout.addWidget(canvas, 1)
        layout.addWidget(self.history)
