"""The compare view: a grid of finished runs' results (a variation set, or any selected runs)
to pick one — Use as new image, Save as… — and discard the rest."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMargins, QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication, QIcon, QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.pipeline.api import RunSnapshot

THUMB_PX = 220
COLUMNS = 3
ROWS_SHOWN = 2  # the dialog opens tall enough for this many rows of tiles (the rest scroll)
SCREEN_SHARE = 0.9  # never more of the screen than this


def _tr(text: str) -> str:
    return QCoreApplication.translate("Queue", text)


def _thumbnail(path: Path) -> QPixmap:
    """The result scaled to the tile (a small one up, so that seeds can be told apart)."""
    pixmap = QPixmap(str(path))
    if pixmap.isNull():
        return pixmap
    return pixmap.scaled(
        THUMB_PX,
        THUMB_PX,
        Qt.AspectRatioMode.KeepAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )


class CompareDialog(QDialog):
    """One checkable tile per run (its result and seed); the actions act on the checked one."""

    use_requested = Signal(object)  # RunSnapshot
    save_requested = Signal(object)  # RunSnapshot
    discard_requested = Signal(list)  # list[RunSnapshot]: all but the picked one

    def __init__(self, runs: list[RunSnapshot], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compare_dialog")
        self.setWindowTitle(_tr("Compare results"))
        self.runs = list(runs)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        grid = QGridLayout()
        grid.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.tiles: list[QToolButton] = []
        for n, run in enumerate(self.runs):
            tile = QToolButton(self)
            tile.setObjectName(f"compare_tile_{n}")
            tile.setCheckable(True)
            tile.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
            tile.setIconSize(QSize(THUMB_PX, THUMB_PX))
            if run.result is not None:
                tile.setIcon(QIcon(_thumbnail(Path(run.result))))
            caption = _tr("seed {seed}").format(seed=run.spec.seed)
            if run.accepted_step is not None:
                caption += " · " + _tr("accepted at step {step}").format(step=run.accepted_step)
            tile.setText(caption)
            tile.setToolTip(run.spec.prompt)
            self.group.addButton(tile, n)
            grid.addWidget(tile, n // COLUMNS, n % COLUMNS)
            self.tiles.append(tile)
        if len(self.tiles) == 1:  # one result: nothing to choose; several: the user picks one
            self.tiles[0].setChecked(True)
        self.hint = QLabel(
            _tr(
                "Click the result to keep, then: Use as new image puts it on the canvas, "
                "Save as… writes it with its settings, Discard the rest deletes the other runs."
            ),
            self,
        )
        self.hint.setWordWrap(True)
        self.use_button = QPushButton(_tr("Use as new image"), self)
        self.use_button.setObjectName("compare_use")
        self.save_button = QPushButton(_tr("Save as…"), self)
        self.save_button.setObjectName("compare_save")
        self.discard_button = QPushButton(_tr("Discard the rest"), self)
        self.discard_button.setObjectName("compare_discard")
        close = QPushButton(_tr("Close"), self)
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.use_button)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.discard_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        tiles = QWidget(self)
        tiles.setLayout(grid)
        scroll = QScrollArea(self)
        scroll.setWidget(tiles)
        scroll.setWidgetResizable(True)
        self.tiles_area = scroll
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)
        self.use_button.clicked.connect(self._use)
        self.save_button.clicked.connect(self._save)
        self.discard_button.clicked.connect(self._discard)
        self.group.idToggled.connect(lambda *_: self._update_buttons())
        self._update_buttons()
        self.resize(self._roomy_size(layout.contentsMargins()))

    def _roomy_size(self, margins: QMargins) -> QSize:
        """Room for up to COLUMNS × ROWS_SHOWN tiles without scrolling, within the screen."""
        tile = self.tiles[0].sizeHint() if self.tiles else QSize(THUMB_PX, THUMB_PX)
        columns = max(1, min(len(self.tiles), COLUMNS))
        rows = max(1, min((len(self.tiles) + COLUMNS - 1) // COLUMNS, ROWS_SHOWN))
        spacing = 12
        area = self.tiles_area
        frame = area.frameWidth() * 2 + area.verticalScrollBar().sizeHint().width()
        width = columns * (tile.width() + spacing) + frame + margins.left() + margins.right()
        width = max(width, self.sizeHint().width())
        height = (
            rows * (tile.height() + spacing)
            + frame
            + self.sizeHint().height()
            - area.sizeHint().height()
        )
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            room = screen.availableGeometry().size() * SCREEN_SHARE
            width, height = min(width, room.width()), min(height, room.height())
        return QSize(width, height)

    def _update_buttons(self) -> None:
        """The buttons act on the picked result: none is enabled before one is picked (Discard
        the rest deletes runs), and Discard needs another result to delete."""
        picked = self.picked() is not None
        self.use_button.setEnabled(picked)
        self.save_button.setEnabled(picked)
        self.discard_button.setEnabled(picked and len(self.runs) > 1)

    def picked(self) -> RunSnapshot | None:
        n = self.group.checkedId()
        return self.runs[n] if 0 <= n < len(self.runs) else None

    def pick(self, n: int) -> None:
        self.tiles[n].setChecked(True)

    def _use(self) -> None:
        run = self.picked()
        if run is not None:
            self.use_requested.emit(run)

    def _save(self) -> None:
        run = self.picked()
        if run is not None:
            self.save_requested.emit(run)

    def _discard(self) -> None:
        keep = self.picked()
        rest = [r for r in self.runs if keep is None or Path(r.dir) != Path(keep.dir)]
        self.discard_requested.emit(rest)
