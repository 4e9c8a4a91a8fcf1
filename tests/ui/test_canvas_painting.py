"""Real mouse strokes on the CanvasView, checked on the mask's values."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from app.canvas.tools import ToolKind
from tests.ui.painter import IMAGE_H, IMAGE_W, click, open_window, stroke


def _disc(cx: int, cy: int, radius: float) -> np.ndarray:
    y, x = np.mgrid[0:IMAGE_H, 0:IMAGE_W]
    return ((x - cx) ** 2 + (y - cy) ** 2 <= radius**2).astype(np.float32)


def test_hard_brush_paints_a_disc_of_the_brush_radius(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    state = window.paint_state
    state.set_size_px(21)
    state.set_hardness(1.0)
    click(window.canvas_view, 100, 80)
    mask = window.document.mask
    np.testing.assert_array_equal(mask, _disc(100, 80, 10.5))
    assert mask.sum() > 300  # not a degenerate dot


def test_soft_brush_falls_off_monotonically_from_the_centre(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    window.paint_state.set_size_px(41)
    window.paint_state.set_hardness(0.2)
    click(window.canvas_view, 150, 120)
    mask = window.document.mask
    assert mask[120, 150] == 1.0
    for profile in (mask[120, 150:180], mask[120, 150:120:-1], mask[120:150, 150]):
        assert np.all(np.diff(profile) <= 1e-6), profile
    row = mask[120, 150:175]
    assert ((row > 0.05) & (row < 0.95)).sum() >= 5  # a real feathered edge, not a step
    assert mask[120, 150 + 21] == 0.0


def test_opacity_caps_the_mask_value(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    window.paint_state.set_hardness(1.0)
    window.paint_state.set_opacity(0.5)
    stroke(window.canvas_view, [(60, 60), (70, 60), (60, 60), (70, 60)])
    assert window.document.mask.max() == np.float32(0.5)


def test_fast_stroke_leaves_no_gap(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    window.paint_state.set_size_px(5)
    window.paint_state.set_hardness(1.0)
    # A single move event 280 px long: interpolation must fill every pixel in between.
    stroke(window.canvas_view, [(20, 50), (300, 50)])
    mask = window.document.mask
    assert np.all(mask[50, 20:301] == 1.0)
    assert np.all(mask[48:53, 22:299] == 1.0)
    # A diagonal, too.
    stroke(window.canvas_view, [(20, 100), (220, 220)])
    for t in np.linspace(0, 1, 200):
        x, y = 20 + 200 * t, 100 + 120 * t
        assert mask[int(round(y)), int(round(x))] == 1.0


def test_eraser_removes_mask(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    window.mask_controller.fill()
    window.paint_state.set_tool(ToolKind.ERASER)
    window.paint_state.set_size_px(11)
    window.paint_state.set_hardness(1.0)
    stroke(window.canvas_view, [(50, 50), (150, 50)])
    mask = window.document.mask
    assert np.all(mask[50, 50:151] == 0.0)
    assert mask[80, 100] == 1.0


def test_undo_and_redo_restore_the_exact_bytes(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    view, doc = window.canvas_view, window.document
    window.paint_state.set_hardness(0.5)
    stroke(view, [(40, 40), (120, 90), (200, 60)])
    after_first = doc.mask.tobytes()
    window.paint_state.set_tool(ToolKind.ERASER)
    stroke(view, [(60, 40), (180, 80)])
    window.paint_state.set_tool(ToolKind.BRUSH)
    stroke(view, [(250, 200), (300, 220)])
    after_third = doc.mask.tobytes()
    assert len(doc.history) == 3

    QTest.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert doc.mask.tobytes() == after_first
    window.actions_by_name["undo"].trigger()
    assert not doc.mask.any()
    assert not window.actions_by_name["undo"].isEnabled()

    QTest.keyClick(
        view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert doc.mask.tobytes() == after_first
    QTest.keyClick(view, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    window.actions_by_name["redo"].trigger()
    assert doc.mask.tobytes() == after_third


def test_history_stores_the_dirty_rectangle_only(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    window.paint_state.set_size_px(10)
    stroke(window.canvas_view, [(30, 30), (60, 40)])
    stored = window.document.history.used_bytes
    assert 0 < stored < window.document.mask.nbytes / 10


def test_canvas_repaints_only_the_dirty_rectangle(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    view = window.canvas_view
    overlay_before = view.overlay_pixels().copy()
    window.paint_state.set_size_px(9)
    window.paint_state.set_hardness(1.0)
    click(view, 200, 150)
    changed = np.argwhere((view.overlay_pixels() != overlay_before).any(axis=2))
    assert changed.size
    (y0, x0), (y1, x1) = changed.min(axis=0), changed.max(axis=0)
    assert 195 <= x0 and x1 <= 205 and 145 <= y0 and y1 <= 155
    # The overlay's alpha follows the mask and the chosen opacity (50 %).
    assert view.overlay_pixels()[150, 200, 3] == 128


def test_view_modes_and_overlay_colour(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    view = window.canvas_view
    window.mask_controller.fill()
    window.actions_by_name["view_mask"].trigger()
    assert view.view_mode == "mask"
    assert tuple(view.overlay_pixels()[0, 0]) == (255, 255, 255, 255)
    window.actions_by_name["view_image"].trigger()
    assert view.view_mode == "image"
    window.actions_by_name["view_composite"].trigger()
    from PySide6.QtGui import QColor

    view.set_overlay(QColor(0, 0, 255), 1.0)
    assert tuple(view.overlay_pixels()[0, 0]) == (255, 0, 0, 255)  # B, G, R, A


def test_wheel_zooms_about_the_pointer_and_middle_button_pans(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    view = window.canvas_view
    anchor = QPointF(100, 100)
    before = view.widget_to_image(anchor)
    view.zoom_by(2, anchor)
    assert view.zoom > 1.0
    after = view.widget_to_image(anchor)
    assert abs(after.x() - before.x()) < 1e-6 and abs(after.y() - before.y()) < 1e-6
    window.actions_by_name["zoom_100"].trigger()
    assert view.zoom == 1.0
    window.actions_by_name["zoom_fit"].trigger()
    assert view.zoom != 1.0 or view.width() >= IMAGE_W

    start = view.widget_to_image(QPointF(50, 50))
    QTest.mousePress(
        view, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, QPointF(50, 50).toPoint()
    )
    QTest.mouseMove(view, QPointF(90, 70).toPoint())
    QTest.mouseRelease(
        view, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, QPointF(90, 70).toPoint()
    )
    moved = view.widget_to_image(QPointF(90, 70))
    assert abs(moved.x() - start.x()) < 1e-6 and abs(moved.y() - start.y()) < 1e-6
    assert not window.document.mask.any()  # panning does not paint
