"""Save result… of the Run tab: the current run's result PNG with its parameters inside."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from app.core.errors import StepwiseError
from app.jobs.run_state import user_text
from app.pipeline.api import RunSnapshot


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


def ask_target(parent: QWidget) -> Path | None:
    """Where to save the result (the user's choice), or None."""
    target, _ = QFileDialog.getSaveFileName(
        parent,
        _tr("Save result"),
        str(Path.home() / "stepwise-result.png"),
        _tr("PNG image (*.png)"),
    )
    return Path(target) if target else None


def save_result(run: RunSnapshot | None, target: Path, say: Callable[[str], object]) -> Path | None:
    """The run's result PNG with its parameters inside (A1111 text + Stepwise JSON),
    atomically; what happened is said through `say`."""
    from app.imaging.io import load_image
    from app.ui.workspace.png_settings import save_picture

    if run is None or run.result is None:
        return None
    try:
        saved = save_picture(target, load_image(run.result), run.spec)
    except (StepwiseError, OSError) as exc:
        say(
            _tr("The result could not be saved to {path}: {error}").format(
                path=target, error=user_text(exc)
            )
        )
        return None
    say(_tr("Saved {path}").format(path=saved))
    return saved
