"""Settings: preferences only — the language, the cache size, the engine, the engine's CPU
switches, and where Stepwise keeps its files (shown, each with an Open button). Model files and
devices are chosen in the Generate tab only (one editor for them): OK here never changes them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from app.core import platform
from app.core.errors import StepwiseError
from app.core.paths import AppPaths, app_paths
from app.core.settings import Settings, save_settings
from app.jobs.job_form import JobForm
from app.pipeline.job.params import FLASH_ATTENTION, MMAP, THREADS, Param
from app.ui.kit.messages import show_error
from app.ui.queue.work_policy_box import WorkPolicyBox

log = logging.getLogger(__name__)

MIN_CACHE_MB = 256
MAX_CACHE_MB = 1024 * 1024
DIALOG_WIDTH = 640
# A window's title bar and frame (Windows 10 at 100 %: ~31 + 8 px), kept free below the screen's
# available height so OK / Cancel stay on it.
TITLE_BAR_ALLOWANCE_PX = 48


def _tr(text: str) -> str:
    return QCoreApplication.translate("SettingsDialog", text)


def _languages() -> dict[str, str]:
    try:
        from app.ui.words.i18n import LANGUAGES

        return dict(LANGUAGES)
    except ImportError:  # the painter's i18n module is optional for this dialog
        return {"en": "English", "zh_CN": "简体中文"}


def folders_of(paths: AppPaths) -> list[tuple[str, Path]]:
    """(label, folder) of every place Stepwise writes, as the dialog lists them."""
    return [
        (_tr("Runs"), paths.runs_dir),
        (_tr("Cache"), paths.cache_dir),
        (_tr("Logs"), paths.log_dir),
        (_tr("Measure reports"), paths.measure_dir),
        (_tr("Settings"), paths.config_dir),
    ]


def open_folder(parent: QWidget | None, folder: Path) -> None:
    """Shows `folder` in the file manager; a failure is a message, never a traceback."""
    try:
        platform.open_folder(folder)
    except OSError as exc:
        show_error(parent, _tr("Could not open the folder"), exc, folder)


class SettingsDialog(QDialog):
    """Edits a Settings object and the form's engine switches; `apply()` writes them back."""

    def __init__(
        self,
        settings: Settings,
        form: JobForm,
        parent: QWidget | None = None,
        *,
        paths: AppPaths | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settings_dialog")
        self.setWindowTitle(_tr("Settings"))
        self.settings = settings
        self.form = form
        self.paths = paths if paths is not None else app_paths()

        general = QGroupBox(_tr("General"), self)
        gform = QFormLayout(general)
        self.language = QComboBox(self)
        self.language.setObjectName("settings_language")
        self.language.addItem(_tr("Follow the system"), "")
        for code, name in _languages().items():
            self.language.addItem(name, code)
        self.language_note = QLabel(_tr("A new language shows after a restart."), self)
        self.cache_spin = QSpinBox(self)
        self.cache_spin.setObjectName("settings_cache_mb")
        self.cache_spin.setRange(MIN_CACHE_MB, MAX_CACHE_MB)
        self.cache_spin.setSingleStep(512)
        self.cache_spin.setSuffix(" MB")
        self.cache_spin.setToolTip(
            _tr("Prompt encodings and image latents are kept up to this size, then the oldest go.")
        )
        self.engine_edit = QLineEdit(self)
        self.engine_edit.setPlaceholderText(_tr("Built-in engine"))
        gform.addRow(_tr("Language"), self.language)
        gform.addRow("", self.language_note)
        gform.addRow(_tr("Cache size"), self.cache_spin)
        gform.addRow(_tr("Engine (sd-stage)"), self.engine_edit)

        engine_box = QGroupBox(_tr("Engine switches"), self)
        dform = QFormLayout(engine_box)
        self.threads = QSpinBox(self)
        self.threads.setRange(int(THREADS.minimum or 0), int(THREADS.maximum or 256))
        self.threads.setSpecialValueText(_tr("Automatic"))
        self.flash = QCheckBox(_tr("Flash attention in the diffusion model"), self)
        self.mmap = QCheckBox(_tr("Memory-map model files"), self)
        dform.addRow(_tr("CPU threads"), self.threads)
        dform.addRow(self.flash)
        dform.addRow(self.mmap)

        self.work = WorkPolicyBox(self)  # when the queue may run (Settings.work)

        folders = QGroupBox(_tr("Folders"), self)
        fform = QFormLayout(folders)
        self.folder_buttons: dict[Path, QPushButton] = {}
        for label, folder in folders_of(self.paths):
            fform.addRow(label, self._folder_row(folder))
        note = QLabel(_tr("Model files and devices are chosen in the Generate tab."), self)
        note.setWordWrap(True)
        note.setObjectName("hint")

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        # The groups scroll, OK / Cancel stay below them: the whole is taller than a 1280×720
        # screen with Windows' fonts, and the buttons were off its bottom (issue 37).
        content = QWidget(self)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(general)
        layout.addWidget(engine_box)
        layout.addWidget(self.work)
        layout.addWidget(folders)
        layout.addWidget(note)
        layout.addStretch(1)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("settings_scroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(content)
        outer = QVBoxLayout(self)
        outer.addWidget(self.scroll_area, 1)
        outer.addWidget(buttons)
        self._load()
        self._fit_to_screen(outer, content, buttons)

    def _fit_to_screen(self, outer: QVBoxLayout, content: QWidget, buttons: QWidget) -> None:
        """As tall as the content, at most the screen's free height less a title bar; as wide
        as the content with a vertical scroll bar beside it, so nothing scrolls sideways."""
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        self.scroll_area.setMinimumWidth(content.minimumSizeHint().width() + bar)
        margins = outer.contentsMargins()
        spacing = max(0, outer.spacing())
        chrome = margins.top() + margins.bottom() + spacing + buttons.sizeHint().height()
        wanted = content.sizeHint().height() + chrome
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            wanted = min(wanted, screen.availableGeometry().height() - TITLE_BAR_ALLOWANCE_PX)
        self.resize(max(DIALOG_WIDTH, self.minimumSizeHint().width()), wanted)

    def _folder_row(self, folder: Path) -> QWidget:
        row = QWidget(self)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        shown = QLineEdit(str(folder), row)
        shown.setReadOnly(True)
        shown.setCursorPosition(0)
        button = QPushButton(_tr("Open"), row)
        button.setToolTip(_tr("Show this folder in the file manager"))
        button.clicked.connect(lambda _=False, f=folder: open_folder(self, f))
        layout.addWidget(shown, 1)
        layout.addWidget(button)
        self.folder_buttons[folder] = button
        return row

    def _load(self) -> None:
        s, f = self.settings, self.form
        self.threads.setValue(f.get(THREADS))
        self.flash.setChecked(f.get(FLASH_ATTENTION))
        self.mmap.setChecked(f.get(MMAP))
        self.engine_edit.setText(s.engine_path)
        self.cache_spin.setValue(max(MIN_CACHE_MB, s.cache_limit_mb))
        self.language.setCurrentIndex(max(0, self.language.findData(s.language)))
        self.work.load(s.work)

    def _switch_values(self) -> dict[Param, Any]:
        return {
            THREADS: self.threads.value(),
            FLASH_ATTENTION: self.flash.isChecked(),
            MMAP: self.mmap.isChecked(),
        }

    def apply(self) -> None:
        """Writes back what the dialog shows. Only a switch the user changed is set on the
        form: nothing else of the job (models, devices, the run's parameters) is touched."""
        s, f = self.settings, self.form
        for param, value in self._switch_values().items():
            if value != f.get(param):
                f.set(param, value)
        s.engine_path = self.engine_edit.text().strip()
        s.cache_limit_mb = self.cache_spin.value()
        s.language = str(self.language.currentData())
        s.work = self.work.value(s.work)


def open_settings_dialog(
    parent: QWidget | None,
    settings: Settings,
    form: JobForm,
    paths: AppPaths,
    *,
    applied: Callable[[Settings], None] | None = None,
) -> bool:
    """Shows the dialog; OK applies it and saves the settings file at once (atomically), then
    calls `applied` (e.g. to point the session at another engine). True when OK was pressed."""
    dialog = SettingsDialog(settings, form, parent, paths=paths)
    try:
        if not dialog.exec():
            return False
        dialog.apply()
    finally:
        dialog.deleteLater()
    try:
        save_settings(paths.settings_file, settings)
    except (StepwiseError, OSError) as exc:
        show_error(parent, _tr("Could not save the settings"), exc, paths.settings_file)
    if applied is not None:
        applied(settings)
    return True
