"""Starts the GUI: paths, logging, settings, QApplication, translator, style and main window."""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QFont, QFontDatabase, QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from app.core.errors import StepwiseError
from app.core.logs import setup_logging
from app.core.paths import AppPaths, app_paths
from app.core.settings import Settings, load_settings, save_settings
from app.jobs.workers import stop_every_app_thread
from app.pipeline.api import DeviceInfo
from app.ui import RESOURCES_DIR
from app.ui.kit.guards import install_wheel_guard
from app.ui.shell.engine_build import EngineBuildStatus
from app.ui.shell.features import install_generation_panel
from app.ui.shell.help_menu import HelpMenu, install_help_menu
from app.ui.shell.job_settings import form_from_settings
from app.ui.shell.main_window import MainWindow
from app.ui.words.i18n import choose_language, install_translator

log = logging.getLogger(__name__)

STYLE_FILE = RESOURCES_DIR / "style" / "dark.qss"
ICONS_DIR = RESOURCES_DIR / "icons"
APP_ICON_FILE = ICONS_DIR / "stepwise.svg"
UI_FONT_PT = 10
# In Chinese the UI font is one whose line height holds Chinese glyphs (the first installed of
# these): with a Latin font first (DejaVu Sans, Segoe UI) Qt sizes dock title bars and tabs by
# its metrics and clips the taller fallback glyphs to them ("生成" read "牛成", issue 30 item 5).
CJK_UI_FAMILIES = (
    "Microsoft YaHei UI",
    "Microsoft YaHei",
    "PingFang SC",
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
)
EXCEPTION_TEXT_MAX_CHARS = 300
SAVE_SETTLE_MS = 400  # brush drags change the settings many times a second: save once after


def parse_args(args: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="stepwise", description="Stepwise painter")
    parser.add_argument("image", nargs="?", help="a picture to open")
    parser.add_argument("--mask", help="a mask PNG to load over the picture")
    parser.add_argument("--verbose", action="store_true", help="log debug messages to stderr")
    return parser.parse_args(list(args))


def make_excepthook(log_file: Path | None) -> Callable[..., None]:
    """An excepthook that logs the traceback and shows a short message instead of crashing."""
    showing: list[bool] = []  # non-empty while the message box is open

    def hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        log.error("Unexpected error:\n%s", "".join(traceback.format_exception(exc_type, exc, tb)))
        if QApplication.instance() is None or showing:
            return  # an error inside the message box's own event loop is only logged
        where = QCoreApplication.translate("Application", "Details are in the log file: {0}")
        text = QCoreApplication.translate(
            "Application",
            "Something went wrong: {0}\n\nYour work is still open; "
            "saving the mask now is a good idea.",
        ).format(f"{exc_type.__name__}: {str(exc)[:EXCEPTION_TEXT_MAX_CHARS]}")
        if log_file is not None:
            text += "\n\n" + where.format(log_file)
        showing.append(True)
        try:
            QMessageBox.critical(None, QCoreApplication.translate("Application", "Stepwise"), text)
        finally:
            showing.clear()

    return hook


def ui_font(base: QFont, language: str) -> QFont:
    """The window's font: `base` at UI_FONT_PT, led in Chinese by an installed CJK UI family."""
    font = QFont(base)
    font.setPointSize(UI_FONT_PT)
    if language.startswith("zh"):
        installed = set(QFontDatabase.families())
        chosen = [family for family in CJK_UI_FAMILIES if family in installed]
        if chosen:
            font.setFamilies([*chosen, *base.families()])
    return font


def apply_style(app: QApplication, language: str = "") -> None:
    app.setFont(ui_font(app.font(), language))
    app.setStyle("Fusion")
    try:
        style = STYLE_FILE.read_text(encoding="utf-8")
        app.setStyleSheet(style.replace("@ICONS@", ICONS_DIR.as_posix()))
    except OSError as exc:
        log.warning("Style sheet %s not loaded: %s", STYLE_FILE, exc)
    if APP_ICON_FILE.exists():
        app.setWindowIcon(QIcon(str(APP_ICON_FILE)))


class SettingsAutosave(QObject):
    """Saves the settings file (atomically) when something in it changes: at once for a
    picture opened (the recent files) or a language chosen, shortly after brush changes. The
    job form saves its own values on every change; a crash or a kill -9 loses nothing."""

    def __init__(self, window: MainWindow, settings: Settings, path: Path) -> None:
        super().__init__(window)
        self.window, self.settings, self.path = window, settings, path
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SAVE_SETTLE_MS)
        self._settle.timeout.connect(self.save_now)
        window.image_opened.connect(lambda _path: self.save_now())
        window.language_chosen.connect(lambda _code: self.save_now())
        window.paint_state.brush_changed.connect(self._settle.start)

    def save_now(self) -> None:
        self._settle.stop()
        self.window.store_settings()
        try:
            save_settings(self.path, self.settings)
        except (StepwiseError, OSError) as exc:  # reported in the log; the next change retries
            log.warning("Could not save settings to %s: %s", self.path, exc)


def install_window_services(
    window: MainWindow, paths: AppPaths, settings: Settings, app: QCoreApplication
) -> dict[str, QObject]:
    """The application-wide parts: the wheel guard, settings saved on change, the Help menu
    and the engine-build status (after the generation panel, whose Help menu is reused)."""
    model = window.generation_panel.model

    def devices() -> list[DeviceInfo]:
        return list(model.devices)

    def engine() -> Path | None:
        return Path(settings.engine_path) if settings.engine_path else None

    probe = model.probe_engine
    services: dict[str, QObject] = {
        "wheel_guard": install_wheel_guard(app),
        "autosave": SettingsAutosave(window, settings, paths.settings_file),
        "help_menu": install_help_menu(window, paths, devices=devices, engine=engine),
        "build_status": EngineBuildStatus(window, probe),
    }
    window.help_actions = typing.cast(HelpMenu, services["help_menu"])
    return services


def run_application(args: Sequence[str]) -> int:
    """The GUI's entry point; returns the exit code."""
    options = parse_args(args)
    paths: AppPaths = app_paths().ensure()
    log_file: Path | None
    try:
        log_file = setup_logging(paths.log_dir, verbose=options.verbose)
    except OSError:
        log_file = None
    settings: Settings = load_settings(paths.settings_file)

    QCoreApplication.setApplicationName("Stepwise")
    QCoreApplication.setOrganizationName("Stepwise")
    QApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    language = choose_language(settings.language)
    translator = install_translator(language)  # noqa: F841 (kept alive)
    apply_style(app, language)
    sys.excepthook = make_excepthook(log_file)

    job_form = form_from_settings(settings, paths.settings_file)  # saved when a value changes
    window = MainWindow(settings, job_form=job_form)
    install_generation_panel(window, paths, settings)
    services = install_window_services(window, paths, settings, app)
    window.show()
    typing.cast(EngineBuildStatus, services["build_status"]).start()
    if options.image:
        image, mask = Path(options.image), Path(options.mask) if options.mask else None

        def open_given() -> None:
            if window.open_image(image) and mask is not None:
                window.mask_controller.load_mask(mask)

        # After the event loop starts, so the window is up when a message box has to explain.
        QTimer.singleShot(0, open_given)
    code = app.exec()
    typing.cast(EngineBuildStatus, services["build_status"]).stop()
    late = stop_every_app_thread()  # none may be destroyed running (Qt aborts: exit 134)
    if late:
        log.warning("Threads still running at exit: %s", ", ".join(late))
    app.removeEventFilter(services["wheel_guard"])
    window.store_settings()
    try:
        save_settings(paths.settings_file, settings)
    except Exception as exc:
        log.warning("Could not save settings to %s: %s", paths.settings_file, exc)
    return int(code)
