"""The Qt UI. shell/ composes the window; the features (painter/, prepare/, generation/,
workspace/, runs/, queue/) talk to it through window_host.py; kit/ and words/ are what
they all use. ARCHITECTURE.md draws the floors."""

from __future__ import annotations

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parents[2] / "resources"
"""The style sheet, icons and translations the UI ships (one owner of where they are)."""
