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


def save_result_dialog(
    parent: QWidget, run: RunSnapshot | None, save: Callable[[Path], object]
) -> None:
    """Asks where to save the run's result and hands the place to `save`."""
    if run is None or run.result is None:
        return
    target, _ = QFileDialog.getSaveFileName(
        parent,
        _tr("Save result"),
        str(Path.home() / "stepwise-result.png"),
        _tr("PNG image (*.png)"),
    )
    if target:
        save(Path(target))


def save_result(
    run: RunSnapshot | None,
    target: Path,
    say: Callable[[str], object],
    saved_to: Callable[[str], object],
) -> Path | None:
    """The run's result PNG with its parameters inside (A1111 text + Stepwise JSON),
    atomically; what happened is said through `say`, the file written through `saved_to`."""
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
    saved_to(str(saved))
    return saved
