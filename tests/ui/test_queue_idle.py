"""The Queue dock with the work policy "when I am away" (a fake idle source): it says the
policy and that the worker waits while the user is at the computer, runs the job once the user
is away, and its words in 简体中文; the Settings dialog's Queue group round trip. Screenshots at
1280×720 go to $STEPWISE_SCREENSHOTS when set."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QCoreApplication

from app.core.paths import app_paths
from app.core.settings import WorkSettings
from app.pipeline import work_policy as wp
from app.pipeline.queue.jobs import JobQueue
from app.pipeline.queue.work_gate import Sources
from app.ui.queue import work_texts as ui_words
from tests.fakes.fake_idle import FakeIdle
from tests.ui.runs_fixtures import main_window, spec
from tests.ui.test_queue_ui import _screenshot

pytestmark = pytest.mark.timeout(900)


def _waiting_window(qtbot, sd_stage, tiny_models, idle: FakeIdle):
    job = dataclasses.replace(spec(tiny_models, "a new door", 2), width=64, height=64, seed=9)
    JobQueue(app_paths()).add([job])
    window = main_window(qtbot, sd_stage, tiny_models, show=False)
    window.settings.work = WorkSettings(mode="idle", idle_minutes=5)
    controller = window.queue_controller
    controller.model.sources_of = lambda _policy: Sources(idle=idle, battery=lambda: None)
    controller.model.refresh()
    window.show()
    controller.dock.raise_()
    return window, controller


def test_the_dock_waits_while_the_user_is_at_the_computer(qtbot, sd_stage, tiny_models) -> None:
    idle = FakeIdle(0.0)  # at the computer
    window, controller = _waiting_window(qtbot, sd_stage, tiny_models, idle)
    model, panel = controller.model, controller.queue_panel
    assert panel.work_line.text() == "Runs: when idle (no input for 5 min)"
    panel.run_button.click()
    waiting = "Runs: when idle (no input for 5 min) · waiting: you are at the computer"
    qtbot.waitUntil(lambda: panel.work_line.text() == waiting, timeout=30_000)
    assert [v.state for v in model.views] == ["queued"]  # nothing taken while waiting
    _screenshot(window, "queue-waiting-for-idle-en")
    idle.set(3600.0)  # the user went away
    with qtbot.waitSignal(model.result_ready, timeout=600_000):
        model.poke()
    qtbot.waitUntil(lambda: not model.running, timeout=60_000)
    assert [v.state for v in model.views] == ["done"]
    window.generation_panel.shutdown()


def test_a_policy_changed_in_the_dock_applies_to_the_waiting_queue_at_once(
    qtbot, sd_stage, tiny_models
) -> None:
    """Issue 41: a worker waiting under "when idle" kept waiting after "Always" until the queue
    was suspended and started again, and nothing in the Queue dock led to the setting. The dock
    shows the policy and changes it; the waiting worker takes the job at once."""
    window, controller = _waiting_window(qtbot, sd_stage, tiny_models, FakeIdle(0.0))
    model, panel = controller.model, controller.queue_panel
    assert panel.mode.currentData() == wp.IDLE  # the policy in force, shown
    model.start()
    qtbot.waitUntil(lambda: "waiting: you are at the computer" in panel.work_line.text(),
                    timeout=30_000)  # fmt: skip
    with qtbot.waitSignal(model.result_ready, timeout=600_000):
        index = panel.mode.findData(wp.ALWAYS)
        panel.mode.setCurrentIndex(index)
        panel.mode.activated.emit(index)  # the user picks "Always" in the dock
    assert window.settings.work.mode == wp.ALWAYS  # remembered
    assert panel.work_line.text().startswith("Runs: always")
    qtbot.waitUntil(lambda: not model.running, timeout=60_000)
    assert [v.state for v in model.views] == ["done"]
    window.generation_panel.shutdown()


def test_the_dock_waiting_in_chinese(qtbot, sd_stage, tiny_models) -> None:
    from app.ui.words.i18n import TsTranslator

    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        window, controller = _waiting_window(qtbot, sd_stage, tiny_models, FakeIdle(0.0))
        panel = controller.queue_panel
        controller.model.start()
        waiting = "运行：空闲时（5 分钟无输入） · 等待中：你正在使用电脑"
        qtbot.waitUntil(lambda: panel.work_line.text() == waiting, timeout=30_000)
        _screenshot(window, "queue-waiting-for-idle-zh")
        assert controller.model.shutdown()  # quitting while it waits: the worker ends
        assert not controller.model.running
        window.generation_panel.shutdown()
    finally:
        QCoreApplication.removeTranslator(translator)


def test_settings_dialog_remembers_the_policy(qtbot, tiny_form) -> None:
    from app.core.settings import Settings
    from app.ui.shell.settings_dialog import SettingsDialog

    settings = Settings(work=WorkSettings(mode="hours", hours="23:00-06:00"))
    dialog = SettingsDialog(settings, tiny_form())
    qtbot.addWidget(dialog)
    box = dialog.work
    assert box.mode.currentData() == "hours" and box.hours.text() == "23:00-06:00"
    assert box.hours.isEnabled() and not box.idle_minutes.isEnabled()
    box.mode.setCurrentIndex(box.mode.findData("always"))
    box.not_on_battery.setChecked(True)
    dialog.apply()
    assert settings.work == WorkSettings(mode="always", hours="23:00-06:00", not_on_battery=True)


@pytest.mark.parametrize("reason", wp.REASONS)
def test_every_reason_to_wait_has_its_words(qapp, reason: str) -> None:
    """Each reason the gate gives is said in the CLI's English and the window's English and
    简体中文, not as a bare "waiting"."""
    from app.cli import work_texts as cli_words
    from app.ui.words.i18n import TsTranslator

    now = wp.Verdict(False, reason, until="01:00")
    english = ui_words.waiting_text(now)
    assert cli_words.waiting_text(now) != "waiting" and english != "waiting"
    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        chinese = ui_words.waiting_text(now)
    finally:
        QCoreApplication.removeTranslator(translator)
    assert chinese not in ("", english, "等待中"), chinese
