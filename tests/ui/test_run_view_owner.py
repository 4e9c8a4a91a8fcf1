"""A run view belongs to one run (issue 16): the Run tab's step strip, its step label and its
result box show the model's current run and nothing of the run before, on the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.jobs.run_state import RunState
from app.pipeline.params import STEPS
from tests.ui.test_generation_engine import RUN_TIMEOUT_MS, hold_at_step, make_panel, wait_idle

__all__ = ["make_panel"]  # the fixture, used by name

pytestmark = pytest.mark.slow


def _click_step(qtbot, strip, step: int) -> None:  # noqa: ANN001
    row = strip.steps().index(step)
    qtbot.mouseClick(
        strip.viewport(),
        Qt.MouseButton.LeftButton,
        pos=strip.visualItemRect(strip.item(row)).center(),
    )


def _strip_dirs(strip) -> set[Path]:  # noqa: ANN001
    return {Path(strip.path(step)).parents[1] for step in strip.steps()}


def test_the_strip_and_the_result_follow_the_current_run(qtbot, make_panel) -> None:
    panel = make_panel(prompt="a door of one run", steps=4)
    view = panel.run_view
    panel.all_button.click()
    wait_idle(qtbot, panel)
    first = panel.model.run
    assert first.finished and view.strip.steps() == [1, 2, 3, 4]
    _click_step(qtbot, view.strip, 3)
    assert view.strip.selected_step() == 3 and "3" in view.step_label.text()

    # A new run of 2 steps: its strip holds its 2 steps, not the 4 of the run before.
    panel.model.form.set(STEPS, 2)
    panel.all_button.click()
    wait_idle(qtbot, panel)
    second = panel.model.run
    assert second.dir != first.dir and second.finished
    assert view.strip.steps() == [1, 2]
    assert _strip_dirs(view.strip) == {Path(second.dir)}
    assert view.step_label.text() == ""  # "Step 3 selected" was the other run's

    # Reopening the first run: its 4 steps and its result, and the step actions act on it.
    assert panel.model.open_run(Path(first.dir)) is not None
    assert view.strip.steps() == [1, 2, 3, 4]
    assert _strip_dirs(view.strip) == {Path(first.dir)}
    assert view.result_view.has_result()
    _click_step(qtbot, view.strip, 4)
    view.decode_button.click()
    wait_idle(qtbot, panel)
    assert (Path(first.dir) / "steps").is_dir() and not (Path(second.dir) / "steps").exists()


def test_a_suspended_run_then_a_new_run_shows_only_the_new_runs_steps(qtbot, make_panel) -> None:
    panel = make_panel(prompt="a door suspended", steps=30)
    view = panel.run_view
    hold_at_step(panel, 3)
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.model.state is RunState.PAUSED, timeout=RUN_TIMEOUT_MS)
    view.suspend_button.click()
    wait_idle(qtbot, panel)
    assert len(view.strip.steps()) >= 3
    suspended = panel.model.run
    panel.model.form.set(STEPS, 2)  # another job: Run all makes a new run
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert panel.model.run.dir != suspended.dir
    assert view.strip.steps() == [1, 2]
    assert _strip_dirs(view.strip) == {Path(panel.model.run.dir)}
