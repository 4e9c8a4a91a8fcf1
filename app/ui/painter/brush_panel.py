"""Tool choice, brush settings, and how the mask is shown."""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QButtonGroup,
    QColorDialog,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.canvas.tools import BRUSH_SIZE_MAX_PX, BRUSH_SIZE_MIN_PX, PaintState, ToolKind
from app.ui.kit.slider_field import SliderField
from app.ui.painter.canvas_view import CanvasView, ViewMode


class BrushPanel(QWidget):
    """Brush / eraser / lasso, size, hardness, opacity, overlay colour and view mode."""

    def __init__(self, state: PaintState, view: CanvasView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.view = view

        tools = QGroupBox(self.tr("Tool"))
        self.tool_buttons: dict[ToolKind, QPushButton] = {}
        self._tool_group = QButtonGroup(self)
        row = QGridLayout()  # two a row: four side by side do not fit the panel in Chinese
        for index, (kind, text, tip) in enumerate(
            (
                (ToolKind.BRUSH, self.tr("Brush"), self.tr("Paint the area to repaint (B)")),
                (ToolKind.ERASER, self.tr("Eraser"), self.tr("Remove mask (E)")),
                (
                    ToolKind.LASSO,
                    self.tr("Lasso"),
                    self.tr(
                        "Drag a free shape, or click corners and double-click to close; "
                        "hold Alt to cut it out of the mask (L)"
                    ),
                ),
                (
                    ToolKind.CONTEXT,
                    self.tr("Context"),
                    self.tr(
                        "Drag the area the model sees besides the mask (with 'Only the masked "
                        "area'); a click clears it"
                    ),
                ),
            )
        ):
            button = QPushButton(text)
            button.setCheckable(True)
            button.setToolTip(tip)
            button.setObjectName("toolButton")
            self._tool_group.addButton(button)
            self.tool_buttons[kind] = button
            button.clicked.connect(lambda _=False, k=kind: state.set_tool(k))
            row.addWidget(button, index // 2, index % 2)
        tools.setLayout(row)

        brush = QGroupBox(self.tr("Brush"))
        form = QFormLayout(brush)
        self.size_field = SliderField(BRUSH_SIZE_MIN_PX, 512, state.size_px, " px")
        self.size_field.spin.setMaximum(BRUSH_SIZE_MAX_PX)
        self.size_field.setToolTip(self.tr("Brush diameter in image pixels ([ and ])"))
        self.hardness_field = SliderField(0, 100, round(state.hardness * 100), " %")
        self.hardness_field.setToolTip(
            self.tr("100 % gives a hard edge; lower values feather it (Shift+[ and Shift+])")
        )
        self.opacity_field = SliderField(1, 100, round(state.opacity * 100), " %")
        self.opacity_field.setToolTip(self.tr("How strongly one stroke masks"))
        form.addRow(self.tr("Size"), self.size_field)
        form.addRow(self.tr("Hardness"), self.hardness_field)
        form.addRow(self.tr("Opacity"), self.opacity_field)
        self.size_field.value_changed.connect(state.set_size_px)
        self.hardness_field.value_changed.connect(lambda v: state.set_hardness(v / 100))
        self.opacity_field.value_changed.connect(lambda v: state.set_opacity(v / 100))

        display = QGroupBox(self.tr("Display"))
        dform = QFormLayout(display)
        self.view_combo = QComboBox()
        for mode, text in (
            (ViewMode.COMPOSITE, self.tr("Image and mask")),
            (ViewMode.IMAGE_ONLY, self.tr("Image only")),
            (ViewMode.MASK_ONLY, self.tr("Mask only")),
        ):
            self.view_combo.addItem(text, str(mode))
        self.view_combo.currentIndexChanged.connect(
            lambda i: view.set_view_mode(self.view_combo.itemData(i))
        )
        self.color_button = QPushButton()
        self.color_button.setObjectName("colorButton")
        self.color_button.setToolTip(self.tr("Colour of the mask overlay"))
        self.color_button.clicked.connect(self._choose_color)
        self.overlay_field = SliderField(0, 100, round(view.overlay_opacity * 100), " %")
        self.overlay_field.value_changed.connect(
            lambda v: view.set_overlay(view.overlay_color, v / 100)
        )
        dform.addRow(self.tr("Show"), self.view_combo)
        dform.addRow(self.tr("Overlay colour"), self.color_button)
        dform.addRow(self.tr("Overlay opacity"), self.overlay_field)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(tools)
        layout.addWidget(brush)
        layout.addWidget(display)

        state.tool_changed.connect(self.sync_from_state)
        state.brush_changed.connect(self.sync_from_state)
        view.view_mode_changed.connect(self.sync_from_state)
        self.sync_from_state()

    def sync_from_state(self) -> None:
        self.tool_buttons[self.state.tool].setChecked(True)
        self.size_field.set_value(self.state.size_px)
        self.hardness_field.set_value(round(self.state.hardness * 100))
        self.opacity_field.set_value(round(self.state.opacity * 100))
        index = self.view_combo.findData(str(self.view.view_mode))
        self.view_combo.blockSignals(True)
        self.view_combo.setCurrentIndex(index)
        self.view_combo.blockSignals(False)
        self.overlay_field.set_value(round(self.view.overlay_opacity * 100))
        color = self.view.overlay_color
        text = "#000000" if color.lightness() > 140 else "#ffffff"
        self.color_button.setStyleSheet(
            f"QPushButton#colorButton {{ background: {color.name()}; color: {text}; }}"
        )
        self.color_button.setText(color.name())

    def _choose_color(self) -> None:
        color = QColorDialog.getColor(self.view.overlay_color, self, self.tr("Overlay colour"))
        if color.isValid():
            self.view.set_overlay(QColor(color), self.view.overlay_opacity)
            self.sync_from_state()
