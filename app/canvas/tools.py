"""Painting tools working in image coordinates: brush, eraser, lasso / polygon fill, and the
context-area rectangle (what the model sees besides the mask, app/imaging/frame.py)."""

from __future__ import annotations

import math
from enum import StrEnum

import numpy as np
from PySide6.QtCore import QObject, QPointF, QRect, Signal

from app.canvas.document import MaskDocument
from app.imaging import brush, mask_ops
from app.imaging.geometry import Rect

BRUSH_SIZE_MIN_PX = 1
BRUSH_SIZE_MAX_PX = 1024
SIZE_STEP_FRACTION = 0.15
HARDNESS_STEP = 0.1


class ToolKind(StrEnum):
    BRUSH = "brush"
    ERASER = "eraser"
    LASSO = "lasso"
    CONTEXT = "context"


class PaintState(QObject):
    """The current tool and brush settings, shared by the view, panels and shortcuts."""

    tool_changed = Signal(str)
    brush_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tool = ToolKind.BRUSH
        self._size_px = 64
        self._hardness = 0.8
        self._opacity = 1.0

    @property
    def tool(self) -> ToolKind:
        return self._tool

    def set_tool(self, tool: ToolKind | str) -> None:
        tool = ToolKind(tool)
        if tool != self._tool:
            self._tool = tool
            self.tool_changed.emit(str(tool))

    @property
    def size_px(self) -> int:
        return self._size_px

    @property
    def hardness(self) -> float:
        return self._hardness

    @property
    def opacity(self) -> float:
        return self._opacity

    def set_size_px(self, size: int) -> None:
        size = int(min(BRUSH_SIZE_MAX_PX, max(BRUSH_SIZE_MIN_PX, size)))
        if size != self._size_px:
            self._size_px = size
            self.brush_changed.emit()

    def set_hardness(self, hardness: float) -> None:
        hardness = round(min(1.0, max(0.0, float(hardness))), 3)
        if hardness != self._hardness:
            self._hardness = hardness
            self.brush_changed.emit()

    def set_opacity(self, opacity: float) -> None:
        opacity = round(min(1.0, max(0.01, float(opacity))), 3)
        if opacity != self._opacity:
            self._opacity = opacity
            self.brush_changed.emit()

    def grow_size(self, direction: int) -> None:
        """One `]` (direction 1) or `[` (-1) step, proportional so it feels the same at any size."""
        step = max(1, round(self._size_px * SIZE_STEP_FRACTION))
        self.set_size_px(self._size_px + direction * step)

    def step_hardness(self, direction: int) -> None:
        self.set_hardness(round(self._hardness + direction * HARDNESS_STEP, 2))


def _dab_rect(cx: float, cy: float, kernel: np.ndarray) -> tuple[int, int, int, int]:
    # The region stamp_dab may write, plus a pixel on each side: the backup must cover it
    # before the stamp, when stamp_dab's own dirty box is not known yet.
    kh, kw = kernel.shape
    x0 = math.floor(cx - kw / 2) - 1
    y0 = math.floor(cy - kh / 2) - 1
    return x0, y0, x0 + kw + 2, y0 + kh + 2


class BrushTool:
    """Stamps kernels along the pointer path; one press-to-release stroke is one undo step."""

    def __init__(self, document: MaskDocument, state: PaintState) -> None:
        self.document = document
        self.state = state
        self._last: tuple[float, float] | None = None
        self._erase = False
        self._kernel_key: tuple[int, float] | None = None
        self._kernel: np.ndarray | None = None

    def kernel(self) -> np.ndarray:
        key = (self.state.size_px, self.state.hardness)
        if key != self._kernel_key:
            self._kernel = brush.dab_kernel(*key)
            self._kernel_key = key
        assert self._kernel is not None
        return self._kernel

    def press(self, pos: QPointF) -> None:
        if self.document.is_empty():
            return
        self._erase = self.state.tool == ToolKind.ERASER
        label = "Erase" if self._erase else "Brush stroke"
        self.document.begin_stroke(label)
        self._last = (pos.x(), pos.y())
        self._stamp([self._last])

    def move(self, pos: QPointF) -> None:
        if self._last is None:
            return
        p1 = (pos.x(), pos.y())
        spacing = brush.dab_spacing_px(self.state.size_px)
        # The segment's start was stamped as the previous segment's end.
        points = brush.stroke_points(self._last, p1, spacing, include_start=False)
        if points:
            self._stamp(points)
            self._last = (float(points[-1][0]), float(points[-1][1]))

    def release(self, pos: QPointF | None = None) -> None:
        if self._last is None:
            return
        if pos is not None:
            self.move(pos)
        self._last = None
        self.document.end_stroke()

    def active(self) -> bool:
        return self._last is not None

    def _stamp(self, points: list[tuple[float, float]]) -> None:
        kernel = self.kernel()
        mask = self.document.mask
        backup = self.document.stroke_backup()
        dirty = None
        for cx, cy in points:
            backup.protect(*_dab_rect(cx, cy, kernel))
            box = brush.stamp_dab(mask, cx, cy, kernel, self.state.opacity, self._erase)
            if box is not None:
                dirty = box if dirty is None else dirty.union(box)
        if dirty is not None:
            self.document.notify_mask_region(QRect(dirty.x, dirty.y, dirty.width, dirty.height))


class LassoTool:
    """Drag to draw a free lasso, or click corners and double-click / Enter to close a polygon.
    The enclosed area is filled (or cleared when `erase` is set) as one undo step."""

    MIN_DRAG_POINTS = 3

    def __init__(self, document: MaskDocument) -> None:
        self.document = document
        self.points: list[tuple[float, float]] = []
        self._dragging = False
        self._drag_count = 0

    def active(self) -> bool:
        return bool(self.points)

    def press(self, pos: QPointF) -> None:
        if self.document.is_empty():
            return
        self.points.append((pos.x(), pos.y()))
        self._dragging = True
        self._drag_count = 0

    def move(self, pos: QPointF) -> None:
        if not self._dragging:
            return
        last = self.points[-1]
        if abs(pos.x() - last[0]) + abs(pos.y() - last[1]) >= 1.0:
            self.points.append((pos.x(), pos.y()))
            self._drag_count += 1

    def release(self, pos: QPointF | None = None, *, erase: bool = False) -> bool:
        """Closes a dragged lasso; after a plain click the polygon stays open for more corners."""
        if not self._dragging:
            return False
        self._dragging = False
        if self._drag_count >= self.MIN_DRAG_POINTS:
            return self.close(erase=erase)
        return False

    def cancel(self) -> None:
        self.points = []
        self._dragging = False

    def close(self, *, erase: bool = False) -> bool:
        points, self.points = self.points, []
        self._dragging = False
        if len(points) < 3:
            return False
        polygon = [(float(x), float(y)) for x, y in points]
        value = 0.0 if erase else 1.0
        label = "Lasso erase" if erase else "Lasso fill"
        return self.document.apply_operation(
            label, lambda mask: mask_ops.fill_polygon(mask, polygon, value)
        )


class ContextTool:
    """Drag a rectangle over the photo: the context area. The rectangle is clamped to the
    picture and snapped to whole pixels; a click without a drag clears it."""

    MIN_DRAG_PX = 2  # shorter drags are clicks

    def __init__(self, document: MaskDocument) -> None:
        self.document = document
        self._start: tuple[float, float] | None = None
        self._end: tuple[float, float] | None = None

    def active(self) -> bool:
        return self._start is not None

    def press(self, pos: QPointF) -> None:
        if self.document.is_empty():
            return
        self._start = self._end = (pos.x(), pos.y())

    def move(self, pos: QPointF) -> None:
        if self._start is not None:
            self._end = (pos.x(), pos.y())

    def dragged(self) -> Rect | None:
        """The rectangle being dragged (None: none, or still a click)."""
        if self._start is None or self._end is None:
            return None
        (x0, y0), (x1, y1) = self._start, self._end
        if max(abs(x1 - x0), abs(y1 - y0)) < self.MIN_DRAG_PX:
            return None
        width, height = self.document.width, self.document.height
        left = min(max(0, math.floor(min(x0, x1))), width)
        top = min(max(0, math.floor(min(y0, y1))), height)
        right = min(max(0, math.ceil(max(x0, x1))), width)
        bottom = min(max(0, math.ceil(max(y0, y1))), height)
        rect = Rect(left, top, right - left, bottom - top)
        return None if rect.is_empty() else rect

    def release(self, pos: QPointF | None = None) -> tuple[bool, Rect | None]:
        """(True, the rectangle or None to clear) at the end of a press; (False, None) when
        nothing was pressed."""
        if self._start is None:
            return False, None
        if pos is not None:
            self.move(pos)
        rect = self.dragged()
        self._start = self._end = None
        return True, rect

    def cancel(self) -> None:
        self._start = self._end = None
