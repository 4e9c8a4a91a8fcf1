"""A closed window starts no work: its Runs panel lists nothing more (a runner's end delivered
after the window closed used to start a listing that outlived the window, and Qt aborted the
process when the window's session destroyed the running thread)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from app.core.paths import app_paths
from app.core.settings import Settings
from app.jobs.job_form import JobForm
from app.ui.shell.features import install_generation_panel
from app.ui.shell.main_window import MainWindow


def test_a_closed_window_lists_no_runs(qtbot, monkeypatch) -> None:
    settings = Settings()
    window = MainWindow(settings, job_form=JobForm())
    qtbot.addWidget(window)
    install_generation_panel(window, app_paths(), settings)
    window.show()
    QApplication.processEvents()
    controller, session = window.runs_controller, window.generation_panel.model.session
    listed: list[bool] = []
    real = session.list_runs
    monkeypatch.setattr(session, "list_runs", lambda **kw: (listed.append(True), real(**kw))[1])
    controller.refresh()
    qtbot.waitUntil(lambda: not controller._listing, timeout=20_000)
    assert listed == [True]  # open, it lists
    window.close()
    assert not window.isVisible()
    window.generation_panel.model.run_changed.emit(None)  # what a runner's end does
    window.generation_panel.model.runner_ended.emit("finished")
    assert not controller._refresh.isActive()
    controller.refresh()
    assert listed == [True]  # closed, nothing more
