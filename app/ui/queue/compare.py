"""The compare view: a grid of finished runs' results (a variation set, or any selected runs)
to pick one — Use as new image, Save as… — and discard the rest."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
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
        if self.tiles:
            self.tiles[0].setChecked(True)
        self.hint = QLabel(_tr("Pick the result to keep."), self)
        self.use_button = QPushButton(_tr("Use as new image"), self)
        self.use_button.setObjectName("compare_use")
        self.save_button = QPushButton(_tr("Save as…"), self)
        self.save_button.setObjectName("compare_save")
        self.discard_button = QPushButton(_tr("Discard the rest"), self)
        self.discard_button.setObjectName("compare_discard")
        self.discard_button.setEnabled(len(self.runs) > 1)
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
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)
        self.use_button.clicked.connect(self._use)
        self.save_button.clicked.connect(self._save)
        self.discard_button.clicked.connect(self._discard)

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
