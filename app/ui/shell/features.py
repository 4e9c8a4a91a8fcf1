"""Wiring: model + panel into the main window, the document as the job's input, the demo
models (asking before unsaved work is replaced), the Runs dock and the start-up offer of
unfinished runs, the settings dialog, and suspending a running diffuse when the application
quits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from app.canvas import files as canvas_files
from app.canvas.document import MaskDocument
from app.core.errors import StepwiseError
from app.core.paths import AppPaths
from app.core.settings import Settings
from app.jobs.demo_setup import DemoSetup
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.preview_follow import DecodedPreviews
from app.jobs.run_session import RunSession
from app.jobs.run_state import user_text
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    LLM_DEVICE,
    LLM_MODEL,
    PROMPT,
    VAE_DEVICE,
    VAE_MODEL,
)
from app.ui.generation.panel import GenerationPanel
from app.ui.kit.guards import confirm_replace_unsaved
from app.ui.queue import install_queue
from app.ui.runs import install_runs

if TYPE_CHECKING:
    from app.ui.queue.controller import QueueController
    from app.ui.runs.controller import RunsController
    from app.ui.shell.main_window import MainWindow
    from app.ui.window_host import WindowHost

PANEL_OBJECT_NAME = "GenerationDock"
MASK_SETTLE_MS = 300
DEMO_PROMPT = "a small red house"


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


def follow_document(model: GenerationModel, document: MaskDocument) -> None:
    """The canvas document (MaskDocument) becomes the job's input."""
    model.inputs.set_source(
        lambda: (None, None) if document.is_empty() else (document.image, document.mask),
        getattr(document, "facts", None),  # the mask's uint8 and boxes, cached per revision
        lambda: getattr(document, "image_title", None),  # what the run is titled by
    )
    settle = QTimer(model)
    settle.setSingleShot(True)
    settle.setInterval(MASK_SETTLE_MS)  # strokes come fast; the notes need the mask only
    settle.timeout.connect(model.inputs.document_changed)
    document.image_changed.connect(model.inputs.document_changed)
    document.mask_changed.connect(lambda *_: settle.start())


class DemoController(QObject):
    """Help → Try with demo models: tiny models made off the UI thread, CPU devices, the demo
    picture and mask opened in the painter."""

    def __init__(
        self, panel: GenerationPanel, paths: AppPaths, document: Any, on_opened: Any = None
    ) -> None:
        super().__init__(panel)
        self.panel, self.paths, self.document, self.on_opened = panel, paths, document, on_opened
        self._setup: DemoSetup | None = None
        panel.demo_requested.connect(self.start)

    def start(self) -> None:
        if self._setup is not None:
            return
        if self.document is not None and not confirm_replace_unsaved(self.panel, self.document):
            return
        pane = self.panel.models_pane
        pane.demo_button.setEnabled(False)
        pane.show_demo_note(_tr("Preparing the demo models…"))
        setup = DemoSetup(self.paths, self)
        setup.demo_ready.connect(self._ready)
        setup.demo_failed.connect(self._failed)
        setup.finished.connect(self._finished)
        self._setup = setup
        setup.start()

    def wait(self) -> None:
        if self._setup is not None:
            self._setup.wait()

    def _finished(self) -> None:
        setup, self._setup = self._setup, None
        if setup is not None:
            setup.wait()
            setup.deleteLater()
        self.panel.models_pane.demo_button.setEnabled(True)

    def _failed(self, message: str) -> None:
        self.panel.models_pane.show_demo_note(
            _tr("The demo models could not be made: {message}").format(message=message),
            error=True,
        )

    def _ready(self, demo: Any) -> None:
        form: JobForm = self.panel.model.form
        form.set(DIFFUSION_MODEL, str(demo.models.diffusion))
        form.set(LLM_MODEL, str(demo.models.llm))
        form.set(VAE_MODEL, str(demo.models.vae))
        for p in (LLM_DEVICE, DIFFUSION_DEVICE, VAE_DEVICE):
            form.set(p, "cpu")
        if not form.get(PROMPT).strip():
            form.set(PROMPT, DEMO_PROMPT)
        doc = self.document
        if doc is not None:
            try:
                doc.set_image(canvas_files.read_picture(demo.image), demo.image)
                mask = canvas_files.read_mask(demo.mask, (doc.width, doc.height))
                doc.replace_mask(_tr("Demo mask"), mask)
            except (StepwiseError, OSError, ValueError) as exc:
                self._failed(user_text(exc))
                return
            if self.on_opened is not None:
                self.on_opened(str(demo.image))
        self.panel.models_pane.show_demo_note(
            _tr(
                "Demo models are ready and run on the CPU. They have random weights, so "
                "they paint noise by design: they show the workflow, not real pictures. "
                "Choose real FLUX.2 klein files when you want real results."
            ),
            warning=True,
        )
        form.save_now()


def open_settings(
    panel: GenerationPanel,
    settings: Settings,
    paths: AppPaths,
    queue: QueueController | None = None,
) -> None:
    """Settings… from the Generate panel (and the Queue dock): OK saves the file at once, points
    the session at the chosen engine and gives the queue its work policy at once."""
    from app.ui.shell.settings_dialog import open_settings_dialog

    session = panel.model.session

    def applied(s: Settings) -> None:
        apply_settings(session, s)
        if queue is not None:
            queue.model.apply_policy()

    open_settings_dialog(panel, settings, panel.model.form, paths, applied=applied)


def apply_settings(session: RunSession, settings: Settings) -> None:
    """What Settings OK changes takes effect now: the engine, the stage cache's size."""
    session.set_engine(Path(settings.engine_path) if settings.engine_path else None)
    session.set_cache_limit(settings.cache_limit_mb)


def remember_sections(panel: GenerationPanel, settings: Settings) -> None:
    """The Setup tab's sections open as saved; each click is saved at once (the whole settings
    file, atomically, through the job form's saver)."""
    panel.setup_tab.restore(settings.setup_sections)

    def toggled(key: str, opened: bool) -> None:
        settings.setup_sections[key] = opened
        panel.model.form.save_now()

    panel.setup_tab.section_toggled.connect(toggled)


@dataclass(frozen=True)
class GenerationFeatures:
    """What `install` made: the composition root keeps them (MainWindow's typed slots)."""

    panel: GenerationPanel
    runs: RunsController
    queue: QueueController


def install(
    window: WindowHost, owner: QObject, paths: AppPaths, settings: Settings
) -> GenerationFeatures:
    """The generation panel, the Runs and Queue docks and the demo, installed into `window`;
    `owner`: the Qt object that owns what is made here (the window itself)."""
    form = window.job_form
    engine = Path(settings.engine_path) if settings.engine_path else None
    session = RunSession(paths, engine=engine, parent=owner)
    model = GenerationModel(form, session, owner)
    panel = GenerationPanel(model)
    remember_sections(panel, settings)
    dock = window.add_side_panel(panel, _tr("Generate"), object_name=PANEL_OBJECT_NAME)
    dock.setMinimumWidth(460)
    document = window.document
    follow_document(model, document)
    window.prepare_controller.follow(model.model_input)  # "Model input" from the one owner
    canvas_view = window.canvas_view
    demo = DemoController(panel, paths, document, lambda _path: canvas_view.zoom_to_fit())
    runs = install_runs(window, panel, dock)
    queue = install_queue(window, panel, paths)
    runs.queue_runs = queue.model.has_job  # the queue offers its own jobs' runs
    previews = DecodedPreviews(model, owner)
    workspace = window.workspace
    # The canvas shows the model's step previews, decoded steps and results.
    workspace.attach(model)
    strip = panel.run_view.strip  # a click on a step of the Run tab shows that step large
    strip.step_selected.connect(lambda step: workspace.show_step_preview(step, strip.path(step)))
    previews.decoded.connect(workspace.show_decoded_preview)
    panel.settings_requested.connect(lambda: open_settings(panel, settings, paths, queue))
    ended = False

    def shut_down() -> None:
        """Once, when the window closes or the app quits: nothing of it starts work after."""
        nonlocal ended
        if ended:
            return
        ended = True
        demo.wait()
        runs.shutdown()
        previews.stop()
        panel.shutdown()
        if workspace is not None:
            workspace.shutdown()

    window.closed.connect(shut_down)
    app = QCoreApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(shut_down)
    action = window.help_menu.addAction(_tr("Try with demo models"))

    def try_demo() -> None:
        dock.show()
        dock.raise_()
        demo.start()

    action.triggered.connect(try_demo)
    from app.ui.shell.measure_dialog import install_measure_action

    session = panel.model.session
    install_measure_action(window, panel.model.form, paths, settings, lambda: session.engine)
    window.close_guards.append(lambda: confirm_quit_during_run(panel))
    return GenerationFeatures(panel, runs, queue)


def confirm_quit_during_run(panel: GenerationPanel) -> bool:
    """Closing while a run works: "Suspend and quit?" — yes suspends (progress kept, the run is
    offered at the next start; the quit then waits for the engine, within its stop deadline)."""
    if not panel.model.state.busy:
        return True
    answer = QMessageBox.question(
        panel,
        _tr("A run is in progress"),
        _tr(
            "Suspend the run and quit? Its finished steps are kept and Stepwise offers to "
            "resume it at the next start."
        ),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Yes,
    )
    if answer != QMessageBox.StandardButton.Yes:
        return False
    panel.model.suspend()  # then the line, or the change of state would clear it
    panel.set_status(_tr("Suspending after the current step, then quitting…"))
    return True


def install_generation_panel(
    window: MainWindow, paths: AppPaths, settings: Settings
) -> GenerationPanel:
    """Installs the generation panel with the Runs and Queue docks and keeps them in the
    window's typed slots (this is the composition root's side: the features see the window
    only as a WindowHost)."""
    made = install(window, window, paths, settings)
    window.generation_panel = made.panel
    window.runs_controller = made.runs
    window.queue_controller = made.queue
    return made.panel
