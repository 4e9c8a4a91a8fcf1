"""The queue's "random seeds" choice is remembered: saved with the settings when it is clicked,
and the next window starts with it (issue 30 item 8: it was lost at every start, so Add to
queue × 3 counted up from a seed already used)."""

from __future__ import annotations

from app.core.paths import app_paths
from app.core.settings import Settings, load_settings


def _window(qtbot, settings: Settings):
    from app.ui.shell.features import install_generation_panel
    from app.ui.shell.job_settings import form_from_settings
    from app.ui.shell.main_window import MainWindow

    form = form_from_settings(settings, app_paths().settings_file)
    window = MainWindow(settings, job_form=form)
    qtbot.addWidget(window)
    install_generation_panel(window, app_paths(), settings)
    return window


def test_random_seeds_is_remembered(qtbot) -> None:
    path = app_paths().settings_file
    settings = Settings()
    window = _window(qtbot, settings)
    box = window.queue_controller.random_seeds
    assert not box.isChecked()
    box.setChecked(True)
    window.generation_panel.shutdown()
    saved = load_settings(path)
    assert saved.queue_random_seeds is True
    again = _window(qtbot, saved)
    try:
        assert again.queue_controller.random_seeds.isChecked()
    finally:
        again.generation_panel.shutdown()
