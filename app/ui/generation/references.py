"""The Reference images pane: pictures FLUX.2 klein takes as references, shown as thumbnails.

Add them from a file dialog, by dropping files or pictures on the pane, by pasting, or from the
current run's result; remove and reorder them (drag, or the arrow buttons). The pane only edits
the job's inputs (JobInputs.refs); writing them for a run (by content hash, verified on reuse)
is job_inputs.py's, and the run carries them as JobSpec.refs.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMimeData, QSize, Qt, Signal
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QIcon,
    QImage,
    QKeySequence,
    QPixmap,
    QShortcut,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.canvas.qimage import array_to_qimage, qimage_to_array
from app.core.errors import StepwiseError
from app.jobs.generation import GenerationModel
from app.jobs.job_inputs import Reference
from app.ui.kit.file_filters import image_file_filter
from app.ui.kit.messages import show_error

THUMB_PX = 72
KEY_ROLE = Qt.ItemDataRole.UserRole


def _tr(text: str) -> str:
    return QCoreApplication.translate("ReferencesPane", text)


def thumbnail(ref: Reference) -> QIcon:
    pixmap = QPixmap.fromImage(array_to_qimage(ref.pixels))
    return QIcon(
        pixmap.scaled(
            THUMB_PX,
            THUMB_PX,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    )


class ReferenceList(QListWidget):
    """Thumbnails in a row; dragging one reorders, dropping files or a picture adds."""

    files_dropped = Signal(list)  # list[Path]
    picture_dropped = Signal(QImage)
    order_changed = Signal(list)  # list[str]: the references' keys in the new order

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("references_list")
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setFlow(QListView.Flow.LeftToRight)
        # One row that scrolls sideways: the pane stays short in a 720-px window.
        self.setWrapping(False)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setIconSize(QSize(THUMB_PX, THUMB_PX))
        self.setGridSize(QSize(THUMB_PX + 16, THUMB_PX + 28))
        self.setMovement(QListView.Movement.Snap)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setAcceptDrops(True)
        self.setFixedHeight(THUMB_PX + 28 + 24)  # a row of thumbnails and a scroll bar

    def _outside(self, mime: QMimeData, source: object) -> bool:
        return source is not self and (mime.hasUrls() or mime.hasImage())

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._outside(event.mimeData(), event.source()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self._outside(event.mimeData(), event.source()):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        if not self._outside(mime, event.source()):
            # A thumbnail dragged within the list: let the view move it, then report the order.
            event.setDropAction(Qt.DropAction.MoveAction)
            super().dropEvent(event)
            self.order_changed.emit(self.keys())
            return
        event.acceptProposedAction()
        paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
        if paths:
            self.files_dropped.emit(paths)
        elif mime.hasImage():
            self.picture_dropped.emit(QImage(mime.imageData()))

    def keys(self) -> list[str]:
        return [str(self.item(i).data(KEY_ROLE)) for i in range(self.count())]


class ReferencesPane(QGroupBox):
    """Reference images of the job (GenerationModel.inputs.refs), as thumbnails."""

    def __init__(self, model: GenerationModel, parent: QWidget | None = None) -> None:
        super().__init__(_tr("Reference images"), parent)
        self.setObjectName("references_pane")
        self.model = model
        self.inputs = model.inputs
        self.list = ReferenceList(self)
        self.hint = QLabel(
            _tr("Drop pictures here, paste one, or add files. The model follows them in order."),
            self,
        )
        self.hint.setObjectName("hintLabel")
        self.hint.setWordWrap(True)
        self.add_button = QPushButton(_tr("Add…"), self)
        self.add_button.setToolTip(_tr("Add reference pictures from files"))
        self.paste_button = QPushButton(_tr("Paste"), self)
        self.paste_button.setToolTip(_tr("Add the picture on the clipboard"))
        self.result_button = QPushButton(_tr("Use the result"), self)
        self.result_button.setToolTip(_tr("Add the current run's result as a reference"))
        self.earlier_button = QPushButton("◀", self)
        self.earlier_button.setToolTip(_tr("Move the chosen reference earlier"))
        self.later_button = QPushButton("▶", self)
        self.later_button.setToolTip(_tr("Move the chosen reference later"))
        self.remove_button = QPushButton(_tr("Remove"), self)
        self.remove_button.setToolTip(_tr("Remove the chosen reference"))
        for button, name in (
            (self.add_button, "references_add"),
            (self.paste_button, "references_paste"),
            (self.result_button, "references_use_result"),
            (self.earlier_button, "references_earlier"),
            (self.later_button, "references_later"),
            (self.remove_button, "references_remove"),
        ):
            button.setObjectName(name)
        adding = QHBoxLayout()
        for button in (self.add_button, self.paste_button, self.result_button):
            adding.addWidget(button)
        adding.addStretch(1)
        editing = QHBoxLayout()
        for button in (self.earlier_button, self.later_button, self.remove_button):
            editing.addWidget(button)
        editing.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addWidget(self.hint)
        layout.addLayout(adding)
        layout.addLayout(editing)
        paste = QShortcut(QKeySequence.StandardKey.Paste, self.list)
        paste.setContext(Qt.ShortcutContext.WidgetShortcut)
        paste.activated.connect(self.paste)
        remove = QShortcut(QKeySequence.StandardKey.Delete, self.list)
        remove.setContext(Qt.ShortcutContext.WidgetShortcut)
        remove.activated.connect(self.remove_selected)

        self.add_button.clicked.connect(self.choose_files)
        self.paste_button.clicked.connect(self.paste)
        self.result_button.clicked.connect(self.use_result)
        self.earlier_button.clicked.connect(lambda: self.move_selected(-1))
        self.later_button.clicked.connect(lambda: self.move_selected(+1))
        self.remove_button.clicked.connect(self.remove_selected)
        self.list.files_dropped.connect(self.add_files)
        self.list.picture_dropped.connect(self.add_picture)
        self.list.order_changed.connect(self._reordered)
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        self.inputs.refs_changed.connect(self._show_refs)
        model.run_changed.connect(lambda _run: self._update_buttons())
        model.state_changed.connect(lambda _state: self._update_buttons())
        self._show_refs()

    # --- adding -------------------------------------------------------------------------------

    def choose_files(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, _tr("Add a reference image"), "", image_file_filter()
        )
        if path:
            self.add_files([Path(path)])

    def add_files(self, paths: list[Path]) -> int:
        """Adds each readable picture; a bad one is explained (naming it) and skipped."""
        added = 0
        for path in paths:
            try:
                added += self.inputs.add_ref(Reference.load(path))
            except StepwiseError as exc:
                show_error(self, _tr("Could not add the reference image"), exc, path)
            except MemoryError:
                show_error(
                    self,
                    _tr("Could not add the reference image"),
                    _tr("{name} is too big to hold in memory.").format(name=path.name),
                )
        return added

    def add_picture(self, image: QImage, name: str | None = None) -> bool:
        pixels = qimage_to_array(image)
        if pixels.size == 0:
            show_error(
                self,
                _tr("Could not add the reference image"),
                _tr("There is no picture on the clipboard."),
            )
            return False
        try:
            return self.inputs.add_ref(Reference.of(pixels, name or _tr("Pasted picture")))
        except StepwiseError as exc:
            show_error(self, _tr("Could not add the reference image"), exc)
            return False

    def paste(self) -> bool:
        clipboard = QGuiApplication.clipboard()
        mime = clipboard.mimeData()
        if mime is not None and mime.hasUrls():
            paths = [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()]
            if paths:
                return self.add_files(paths) > 0
        return self.add_picture(clipboard.image())

    def use_result(self) -> bool:
        run = self.model.run
        if run is None or run.result is None:
            return False
        try:
            return self.inputs.add_ref(Reference.load(run.result))
        except StepwiseError as exc:
            show_error(self, _tr("Could not add the reference image"), exc, run.result)
            return False

    # --- editing ------------------------------------------------------------------------------

    def remove_selected(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.inputs.remove_ref(row)
            if self.list.count():
                self.list.setCurrentRow(min(row, self.list.count() - 1))

    def move_selected(self, by: int) -> None:
        row = self.list.currentRow()
        if row < 0:
            return
        self.inputs.move_ref(row, row + by)
        self.list.setCurrentRow(min(max(row + by, 0), self.list.count() - 1))

    def _reordered(self, keys: list[str]) -> None:
        by_key = {r.key: r for r in self.inputs.refs}
        order = [by_key[k] for k in keys if k in by_key]
        if len(order) == len(by_key) and order != list(self.inputs.refs):
            self.inputs.set_refs(order)
        else:
            self._show_refs()  # a drop the view could not express: show the model's order

    # --- showing ------------------------------------------------------------------------------

    def _show_refs(self) -> None:
        current = self.list.currentRow()
        self.list.blockSignals(True)
        self.list.clear()
        for index, ref in enumerate(self.inputs.refs, start=1):
            w, h = ref.size
            item = QListWidgetItem(thumbnail(ref), f"{index}")
            item.setData(KEY_ROLE, ref.key)
            item.setToolTip(_tr("{name}: {w}×{h} px").format(name=ref.name, w=w, h=h))
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsDropEnabled)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(min(max(current, 0), self.list.count() - 1))
        self.list.blockSignals(False)
        self._update_buttons()

    def _update_buttons(self) -> None:
        busy = self.model.state.busy
        row, count = self.list.currentRow(), self.list.count()
        run = self.model.run
        for widget in (self.add_button, self.paste_button, self.list):
            widget.setEnabled(not busy)
        self.result_button.setEnabled(not busy and run is not None and run.result is not None)
        self.remove_button.setEnabled(not busy and row >= 0)
        self.earlier_button.setEnabled(not busy and row > 0)
        self.later_button.setEnabled(not busy and 0 <= row < count - 1)
