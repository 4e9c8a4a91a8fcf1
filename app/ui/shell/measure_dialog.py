"""Help → Measure this computer: what it will do, progress with the time left and Cancel, then
the report in the user's language, rendered (ui/shell/measure_report.py; saved in English with
the JSON beside it, for us; Copy and Open its folder) and,
with the user's consent, its settings made this computer's defaults (the job form's devices,
flash attention and VAE tiling), saying what changed. The measurement is the pipeline's
(app/jobs/measure_worker.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.core.paths import AppPaths
from app.core.settings import Settings
from app.jobs.job_form import JobForm
from app.jobs.measure_worker import MeasureWorker, SetupOf, default_setup
from app.pipeline.measure.probe import LARGEST, MeasureStep
from app.pipeline.measure.report import CHOICE_PARAMS
from app.ui.shell.measure_report import change_line, device_name, report_markdown, stage_name


def _tr(text: str) -> str:
    return QCoreApplication.translate("Measure", text)


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return _tr("{seconds} s").format(seconds=int(round(seconds)))
    return _tr("{minutes} min").format(minutes=int(round(seconds / 60)))


def intro_text() -> str:
    """What the measurement does, said before it starts."""
    return _tr(
        "Stepwise runs each stage of a job on each device of this computer with small dummy "
        "inputs: the text encoder, diffusion with flash attention off and on, the VAE decode "
        "tiled and untiled, and the largest size that fits. It measures the seconds per step "
        "and the memory used, then suggests settings (nothing changes without your yes). It "
        "takes a few minutes per device; the time left shows once the first stage is timed. "
        "The report is saved in the data folder for you to send with a question."
    )


def step_text(step: MeasureStep) -> str:
    """The step in hand in the user's language."""
    device = device_name(step.device)
    if step.stage == LARGEST:
        return _tr("{device}: the largest size that fits").format(device=device)
    text = _tr("{device}: {stage}").format(device=device, stage=stage_name(step.stage))
    if step.width:
        text += " " + f"{step.width}×{step.height}"
    and_then = _tr("{text}, {detail}")  # Chinese joins them with "，"
    if step.flash_attention is not None:
        detail = _tr("flash attention on") if step.flash_attention else _tr("flash attention off")
        text = and_then.format(text=text, detail=detail)
    if step.tiled is not None:
        detail = _tr("tiled") if step.tiled else _tr("not tiled")
        text = and_then.format(text=text, detail=detail)
    return text


class MeasureDialog(QDialog):
    def __init__(
        self,
        paths: AppPaths,
        form: JobForm,
        engine: Path | None,
        setup_of: SetupOf,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("measure_dialog")
        self.setWindowTitle(_tr("Measure this computer"))
        self.form = form
        self.report: dict[str, Any] | None = None
        self.intro = QLabel(intro_text(), self)
        self.intro.setObjectName("measure_intro")
        self.intro.setWordWrap(True)
        self.status = QLabel(_tr("Starting…"), self)
        self.status.setObjectName("measure_status")
        self.status.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.text = QTextBrowser(self)  # the report rendered (its tables as tables)
        self.text.setObjectName("measure_report")
        self.markdown = ""  # the report as shown, in the user's language (Copy puts it)
        self.report_file: Path | None = None
        self.copy_button = QPushButton(_tr("Copy the report"), self)
        self.copy_button.setObjectName("measure_copy")
        self.copy_button.setEnabled(False)
        self.open_button = QPushButton(_tr("Open its folder"), self)
        self.open_button.setObjectName("measure_open")
        self.open_button.setEnabled(False)
        self.apply_button = QPushButton(_tr("Use these settings on this computer…"), self)
        self.apply_button.setObjectName("measure_apply")
        self.apply_button.setEnabled(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.addButton(self.apply_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_report)
        self.open_button.clicked.connect(self.open_folder)
        self.buttons.rejected.connect(self.reject)
        self.apply_button.clicked.connect(self.apply)
        layout = QVBoxLayout(self)
        for widget in (self.intro, self.status, self.bar, self.text, self.buttons):
            layout.addWidget(widget)
        self.resize(900, 600)  # within 1280×720; the report scrolls
        self.worker = MeasureWorker(paths, engine, setup_of)
        self.worker.progress.connect(self._progress)
        self.worker.done.connect(self._done)
        self.worker.failed.connect(self._failed)
        self.worker.start()

    def _progress(self, done: int, total: int, what: MeasureStep, eta: float | None) -> None:
        self.bar.setRange(0, total)
        self.bar.setValue(done)
        text = _tr("{what} ({done} of {total})").format(
            what=step_text(what), done=done + 1, total=total
        )
        if eta is not None:
            text += " · " + _tr("about {time} left").format(time=_minutes(eta))
        self.status.setText(text)

    def _done(self, report: dict[str, Any], md: str) -> None:
        self.report = report
        self.bar.setValue(self.bar.maximum())
        self.intro.hide()  # said before it started; the report takes its room
        if report["cancelled"]:
            self.status.setText(_tr("Cancelled; the partial report is in {path}").format(path=md))
        else:
            self.status.setText(_tr("Done; the report is in {path}").format(path=md))
        self.report_file = Path(md)  # English, for us; the JSON beside it
        self.markdown = report_markdown(report)  # what the user sees, in their language
        self.text.setMarkdown(self.markdown)
        self.copy_button.setEnabled(True)
        self.open_button.setEnabled(True)
        self.apply_button.setEnabled(bool(report["choice"]))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(_tr("Close"))

    def _failed(self, message: str) -> None:
        self.status.setText(_tr("Measuring failed: {message}").format(message=message))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(_tr("Close"))

    def copy_report(self) -> None:
        """The report as shown (Markdown: its tables paste as tables into an issue)."""
        QGuiApplication.clipboard().setText(self.markdown)
        self.status.setText(_tr("The report is on the clipboard."))

    def open_folder(self) -> None:
        """The folder of the report and its JSON, in the file manager."""
        if self.report_file is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.report_file.parent)))

    def changes(self) -> list[tuple[str, object, object]]:
        choice = self.report["choice"] if self.report else {}
        out = []
        for param in CHOICE_PARAMS:
            if param.name in choice and self.form.get(param) != choice[param.name]:
                out.append((param.name, self.form.get(param), choice[param.name]))
        return out

    def apply(self) -> list[tuple[str, object, object]]:
        """Asks first, listing each change; yes sets them on the job form (remembered)."""
        changes = self.changes()
        if not changes:
            QMessageBox.information(
                self, _tr("Nothing to change"), _tr("The settings are already what it chose.")
            )
            return []
        lines = "\n".join(change_line(name, old, new) for name, old, new in changes)
        answer = QMessageBox.question(
            self,
            _tr("Use these settings?"),
            _tr("Make these this computer's defaults?\n{changes}").format(changes=lines),
        )
        if answer != QMessageBox.StandardButton.Yes:
            return []
        by_name = {p.name: p for p in CHOICE_PARAMS}
        for name, _old, new in changes:
            self.form.set(by_name[name], new)
        self.status.setText(_tr("Changed: {changes}").format(changes=lines.replace("\n", "; ")))
        self.apply_button.setEnabled(False)
        return changes

    def reject(self) -> None:
        """Cancel stops the measurement (its engine ended); Close closes."""
        if self.worker.isRunning():
            self.worker.cancel()
            self.status.setText(_tr("Stopping…"))
            return
        self.worker.stop()
        super().reject()


def install_measure_action(window: Any, form: JobForm, paths: AppPaths, settings: Settings,
                           engine: Any) -> None:  # fmt: skip
    """Help → Measure this computer; `engine()` is the session's engine (None: the built one)."""
    action = window.help_menu.addAction(_tr("Measure this computer…"))
    action.setObjectName("measure_action")

    def open_dialog() -> None:
        dialog = MeasureDialog(paths, form, engine(), default_setup(paths, settings), window)
        dialog.show()  # the window owns it

    action.triggered.connect(open_dialog)
