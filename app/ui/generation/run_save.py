"""Save result… of the Run tab: the current run's result PNG with its parameters inside."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog

from app.core.errors import StepwiseError
from app.jobs.run_state import user_text

if TYPE_CHECKING:
    from app.ui.generation.run_view import RunView


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


def save_result_dialog(view: RunView) -> None:
    run = view.model.run
    if run is None or run.result is None:
        return
    target, _ = QFileDialog.getSaveFileName(
        view,
        _tr("Save result"),
        str(Path.home() / "stepwise-result.png"),
        _tr("PNG image (*.png)"),
    )
    if target:
        view.save_result(Path(target))


def save_result(view: RunView, target: Path) -> Path | None:
    """The result PNG with its parameters inside (A1111 text + Stepwise JSON), atomically."""
    from app.imaging.io import load_image
    from app.ui.workspace.png_settings import save_picture

    run = view.model.run
    if run is None or run.result is None:
        return None
    try:
        saved = save_picture(target, load_image(run.result), run.spec)
    except (StepwiseError, OSError) as exc:
        view.status.emit(
            _tr("The result could not be saved to {path}: {error}").format(
                path=target, error=user_text(exc)
            )
        )
        return None
    view.status.emit(_tr("Saved {path}").format(path=saved))
    view.result_saved.emit(str(saved))
    return saved
