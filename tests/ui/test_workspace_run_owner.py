"""The canvas and the Run tab after a stop, on the main window with the real engine (issue 16,
new-user walk items 2, 3 and 7): "Use as new image" only for full-resolution decoded pictures,
`\\` anywhere in the window, the first click on a result paints, the canvas at the step a
run stopped at, and texts that belong to the run under way."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.jobs.run_state import RunState
from app.pipeline.job.params import SEED, STEPS
from tests.ui.test_generation_engine import hold_at_step
from tests.ui.test_workspace_engine import RUN_TIMEOUT_MS, run_all, window

__all__ = ["window"]  # the fixture, used by name

pytestmark = pytest.mark.slow


def wait_idle(qtbot, win) -> None:
    model = win.generation_panel.model
    qtbot.waitUntil(
        lambda: not model.state.busy and not model.session.busy and not model.start_held,
        timeout=RUN_TIMEOUT_MS,
    )


def click_step(qtbot, strip, step: int) -> None:
    item = strip.item(strip.steps().index(step))
    qtbot.mouseClick(
        strip.viewport(), Qt.MouseButton.LeftButton, pos=strip.visualItemRect(item).center()
    )


def test_use_as_new_image_only_for_decoded_pictures(qtbot, window) -> None:
    win = window
    run_all(qtbot, win)
    bar, workspace = win.workspace_area.bar, win.workspace
    assert workspace.shown.kind == "result" and bar.use.isEnabled()
    before = win.document.image.copy()
    click_step(qtbot, win.generation_panel.run_view.strip, 2)  # a step's (small) preview
    qtbot.waitUntil(lambda: not workspace.file_reads.busy)  # read off the UI thread
    assert workspace.shown.kind == "preview"
    assert not bar.use.isEnabled()
    assert not workspace.use_as_new_image()
    assert (win.document.image == before).all()
    assert bar.save.isEnabled()  # saving what is shown stays possible


def test_backslash_anywhere_keeps_the_result_and_a_first_click_paints(qtbot, window) -> None:
    win = window
    run_all(qtbot, win)
    layer, view = win.canvas_view.layer, win.canvas_view
    assert layer.visible
    strip = win.generation_panel.run_view.strip
    strip.setFocus()  # the focus is in the Generate panel after a run, not on the canvas
    QTest.keyPress(strip, Qt.Key.Key_Backslash)
    assert layer.before_held
    QTest.keyRelease(strip, Qt.Key.Key_Backslash)
    assert not layer.before_held
    prompt = win.generation_panel.prompt_pane.prompt_edit
    QTest.keyClick(prompt, Qt.Key.Key_Backslash)  # typing stays typing
    assert "\\" in prompt.toPlainText() and not layer.before_held
    # The first click on the shown result paints (issue 30: it only gave the canvas its
    # focus and the stroke was dropped): back to the photo, and the stroke is in the mask.
    mask = win.document.mask.copy()
    view.clearFocus()
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, pos=view.rect().center())
    assert not layer.visible and not (win.document.mask == mask).all()


def test_after_a_suspend_the_canvas_and_the_texts_stay_with_the_run(qtbot, window) -> None:
    win = window
    panel = win.generation_panel
    view = panel.run_view
    panel.model.form.set(STEPS, 30)
    hold_at_step(panel, 3)
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.model.state is RunState.PAUSED, timeout=RUN_TIMEOUT_MS)
    assert "left" not in view.progress.detail.text()  # no time left counts while paused
    view.suspend_button.click()
    wait_idle(qtbot, win)
    k = panel.model.run.last_completed_step
    caption = win.workspace_area.bar.caption.text()
    assert not caption.startswith("Step 1 of"), caption
    assert caption.startswith(f"Step {k} of 30") or win.workspace.shown is None, caption
    click_step(qtbot, view.strip, 2)
    assert view.step_label.text() == "Step 2 selected"
    # Another job: a new run; "Done" and "Step 2 selected" were the old run's.
    panel.model.form.set(STEPS, 2)
    texts: list[str] = []
    panel.model.state_changed.connect(
        lambda state: (
            texts.append(view.progress.bar.format()) if state is RunState.PREPARING else None
        )
    )
    panel.all_button.click()
    wait_idle(qtbot, win)
    assert texts and texts[0] != "Done"
    assert view.step_label.text() == ""
    # After a finished run, the next one does not show "Done" while it starts.
    assert panel.model.run.finished and view.progress.bar.format() == "Done"
    panel.model.form.set(SEED, 8)
    texts.clear()
    panel.all_button.click()
    wait_idle(qtbot, win)
    assert texts == ["Preparing the inputs…"]


def test_after_cancel_one_button_continues(qtbot, window) -> None:
    win = window
    panel = win.generation_panel
    view = panel.run_view
    panel.model.form.set(STEPS, 30)
    hold_at_step(panel, 2)
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.model.state is RunState.PAUSED, timeout=RUN_TIMEOUT_MS)
    view.cancel_button.click()
    wait_idle(qtbot, win)
    assert panel.model.state is RunState.CANCELLED
    k = panel.model.run.last_completed_step
    caption = win.workspace_area.bar.caption.text()
    assert k >= 2 and not caption.startswith("Step 1 of"), caption  # the canvas stays at k
    assert caption.startswith(f"Step {k} of 30") or win.workspace.shown is None, caption
    continuing = [b for b in (view.resume_button, panel.all_button) if b.isEnabled()]
    assert len(continuing) == 1, [b.text() for b in continuing]
