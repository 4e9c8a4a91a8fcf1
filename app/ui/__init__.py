"""The Qt UI. shell/ composes the window; the features (painter/, prepare/, generation/,
workspace/, runs/, queue/) talk to it through window_host.py; kit/ and words/ are what
they all use. ARCHITECTURE.md draws the floors.

- The window: `shell/application.py` makes the `MainWindow` and hands it to
  `shell/features.py`, which installs the generation panel, the Runs and Queue docks and joins
  the features that need each other. A feature sees the window only as
  `window_host.WindowHost` / `ShellWindow` (Protocols), so app/ has no import circle. The
  window makes the one Help menu; features add their items to it.
- The canvas: `workspace/WorkspaceController` shows step previews, decoded steps and results
  on the canvas's generated layer through the run's prepare record (`canvas/generated.py`);
  a file it reads is decoded in a worker (newest wins). The Run tab (`generation/run_view.py`)
  and the layer keep the run folder they show and reload when the model's run changes.
- Words: failure kinds and notes are data until `words/texts.py` renders them (tr(), the
  error's templates and values); the OS's reasons by errno (`words/os_reasons.py`); joined
  sentences through `words/sentences.tidy`.
"""

from __future__ import annotations

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parents[2] / "resources"
"""The style sheet, icons and translations the UI ships (one owner of where they are)."""
