"""The keys the canvas acts on that are no menu action (held, or pressed while a tool works):
their one owner. The key handlers (canvas_view.py, workspace/before_after.py) use these keys,
and Help → Keyboard Shortcuts lists these rows after the actions' own shortcuts."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt

BEFORE_AFTER_KEY = Qt.Key.Key_Backslash  # held: the photo under the generated picture
PAN_KEY = Qt.Key.Key_Space  # held: a drag pans


def _tr(text: str) -> str:
    return QCoreApplication.translate("HeldKeys", text)


def held_key_rows() -> list[tuple[str, str, str]]:
    """(where, what, keys) for each key the canvas acts on without a menu action."""
    canvas = _tr("Canvas")
    return [
        (
            _tr("Window (not while typing)"),
            _tr("Show the photo under the generated picture (before / after)"),
            _tr("hold \\"),
        ),
        (canvas, _tr("Pan"), _tr("hold Space and drag, or drag with the middle button")),
        (canvas, _tr("Zoom"), _tr("mouse wheel")),
        (canvas, _tr("Lasso: cut out instead of adding"), _tr("hold Alt")),
        (canvas, _tr("Lasso: close the shape"), _tr("Enter")),
        (canvas, _tr("Lasso or context area: cancel the shape"), _tr("Esc")),
    ]
