"""Closing the window with a memory plan in flight stops the plan and reaps its `sd-stage
--plan` child at once (issue 20: the worker and its child were left running). The plan's
engine is a wedged fake (tests/engine/fake_stage.py `hang`: ignores SIGTERM, never answers)."""

from __future__ import annotations

import sys

import psutil
import pytest

from app.core.paths import app_paths
from app.jobs.memory_plan import pipeline_plan_fn
from app.pipeline import Pipeline
from tests.engine.test_children import wedged_engine
from tests.ui.runs_fixtures import main_window

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell wrapper")


def test_closing_the_window_stops_a_plan_in_flight(qtbot, tmp_path, sd_stage, tiny_models):
    window = main_window(qtbot, sd_stage, tiny_models)
    plan = window.generation_panel.memory_plan
    qtbot.waitUntil(lambda: not plan._workers, timeout=120_000)  # the real engine's first plan
    wedged = Pipeline(app_paths(), wedged_engine(tmp_path))
    plan.plan_fn = pipeline_plan_fn(lambda: wedged)
    plan.refresh()
    (worker,) = plan._workers
    qtbot.waitUntil(lambda: bool(worker.engine_children.running()), timeout=60_000)
    (pid,) = worker.engine_children.running()
    window.close()
    assert worker.isFinished()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    plan.schedule()  # a change after the close plans nothing
    assert not plan._timer.isActive()
    plan.refresh()
    assert all(w.isFinished() for w in plan._workers)
