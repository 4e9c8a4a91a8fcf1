"""The job's memory plan for the Devices pane: computed off the UI thread (a QThread), again a
moment after the size, a device, a memory switch or a model changes (debounced), and only the
newest result is shown (PipelineAPI.plan makes it).

`pending` says whether the plan shown is still being made for the job as it is now (Run all and
Add to queue wait for it: ui/generation/fit_guard.FitGate; `settled` when it is not any more),
and `hurry` skips the debounce. Plans are kept by their inputs (the job, the size, the
devices): a job planned before (a setting changed and changed back, an offer of the fit guard
taken) is shown at once, without a minute of `--plan` calls on a busy machine."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from app.engine.children import WorkerStopped
from app.imaging.geometry import Size
from app.jobs.generation import GenerationModel
from app.jobs.run_state import log_error, user_text
from app.jobs.workers import EngineWorker
from app.pipeline.api import DeviceInfo, PipelineAPI
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    FIT_MEMORY,
    FLASH_ATTENTION,
    HEIGHT,
    LLM_DEVICE,
    LLM_MODEL,
    MAX_ALLOC_MB,
    SOURCE_REF,
    VAE_DEVICE,
    VAE_MODEL,
    VAE_TILE_SIZE,
    VAE_TILING,
    WIDTH,
)
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import JobPlan

log = logging.getLogger(__name__)

DEBOUNCE_MS = 700
WATCHED = frozenset(
    p.name
    for p in (
        WIDTH, HEIGHT, DIFFUSION_DEVICE, LLM_DEVICE, VAE_DEVICE, FLASH_ATTENTION, VAE_TILING,
        VAE_TILE_SIZE, FIT_MEMORY, MAX_ALLOC_MB, DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL,
        SOURCE_REF,
    )
)  # fmt: skip

# Why there is no plan (codes; the pane owns the texts); else the planner's own message.
NO_ENGINE = "no_engine"
NO_MODELS = "no_models"

PlanFn = Callable[[JobSpec, int, int, Mapping[str, DeviceInfo]], JobPlan]


# The plan reads of the inputs only whether there is a picture, a mask and how many references
# there are (job_plan.py): stand-ins, as no file is written before a run starts.
PLAN_PICTURE = "<the picture>"
PLAN_MASK = "<the mask>"


def plan_spec(model: GenerationModel) -> JobSpec:
    """The job the plan is made for: the form's, with the painter's picture (so img2img and
    the photo as a reference are planned) and one stand-in per reference image."""
    spec = model.spec(None)
    inputs = model.inputs
    image = PLAN_PICTURE if inputs.image is not None else None
    mask = PLAN_MASK if image is not None and not model.mask_empty() else None
    refs = tuple(r.name for r in inputs.refs)
    return dataclasses.replace(spec, image=image, mask=mask, refs=refs)


def session_plan_fn(model: GenerationModel) -> PlanFn:
    """Plans with the pipeline the model's session holds (asked for when a plan is made)."""
    return pipeline_plan_fn(lambda: model.session.pipeline)


def pipeline_plan_fn(pipeline: Callable[[], PipelineAPI]) -> PlanFn:
    """Plans with PipelineAPI.plan, on the devices the model knows."""

    def plan(spec: JobSpec, width: int, height: int, infos: Mapping[str, DeviceInfo]) -> JobPlan:
        return pipeline().plan(spec, (width, height), list(infos.values()))

    return plan


class _PlanWorker(EngineWorker):
    planned = Signal(int, object)  # generation, JobPlan
    failed = Signal(int, str)

    def __init__(self, generation: int, work: Callable[[], JobPlan], parent: QObject) -> None:
        super().__init__(parent)
        self.setObjectName("MemoryPlanWorker")
        self._generation = generation
        self._work = work

    def work(self) -> None:
        try:
            self.planned.emit(self._generation, self._work())
        except WorkerStopped:
            pass  # its window closed: nobody waits for this plan
        except Exception as exc:  # shown in the pane, never a crash
            log_error(log, "memory plan failed", exc)
            self.failed.emit(self._generation, user_text(exc))


CACHED_PLANS = 32


def plan_key(
    spec: JobSpec, width: int, height: int, infos: Mapping[str, DeviceInfo]
) -> object | None:
    """What a plan depends on (None: not hashable, not cached). The devices' free memory is
    part of it: a plan made when the card was busy is not reused once it is free."""
    key = (spec, width, height, tuple(sorted(infos.items())))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _pair(size: Size | None) -> tuple[int, int] | None:
    return None if size is None else (int(size.width), int(size.height))


class MemoryPlan(QObject):
    """What the Devices pane shows about memory; `plan_fn` None = plans are not available."""

    planned = Signal(object)  # JobPlan
    failed = Signal(str)  # why no plan could be made: NO_ENGINE, NO_MODELS or a message
    planning = Signal()  # a new plan is being made
    settled = Signal()  # `pending` turned False: a plan (or why there is none) is known

    def __init__(
        self, model: GenerationModel, plan_fn: PlanFn | None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.plan_fn = plan_fn
        self.size: tuple[int, int] | None = None  # None: the form's width × height
        self.last: JobPlan | None = None
        self.pending = False  # a plan for the job as it is now is due (scheduled or running)
        self._cache: dict[object, JobPlan] = {}  # by the plan's inputs (plan_key)
        self._generation = 0
        self._workers: list[_PlanWorker] = []
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.refresh)
        model.form.changed.connect(self._form_changed)
        model.devices_changed.connect(lambda _devices: self.schedule())
        # A picture opened or closed, a mask painted or cleared, a reference added: the job
        # planned changes (vae-encode, the init latent and the mask, the reference tokens).
        self._inputs_key = self._key_of_inputs()
        model.inputs.changed.connect(self._inputs_changed)
        # The plan is made for the size the engine will get (the prepared picture's), from
        # the model's one owner of it.
        self.size = _pair(model.model_input.size)
        model.model_input.changed.connect(lambda size: self._set_size(_pair(size)))
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)
        if plan_fn is not None:
            self.schedule()

    def _set_size(self, size: tuple[int, int] | None) -> None:
        """The size the engine will be given (an image's prepared size); None: the form's."""
        if size != self.size:
            self.size = size
            self.schedule()

    def _key_of_inputs(self) -> tuple[bool, bool, int]:
        inputs = self.model.inputs
        picture = inputs.image is not None
        return picture, picture and not self.model.mask_empty(), len(inputs.refs)

    def _inputs_changed(self) -> None:
        key = self._key_of_inputs()
        if key != self._inputs_key:
            self._inputs_key = key
            self.schedule()

    def _form_changed(self, name: str, _value: object) -> None:
        if name in WATCHED:
            self.schedule()

    def schedule(self) -> None:
        """Plans again once the changes have settled."""
        if not self._stopped:
            self.pending = True
            self._timer.start()

    def hurry(self) -> None:
        """Someone waits for the plan (Run all): a plan due after the debounce starts now."""
        if self._timer.isActive():
            self.refresh()

    def current_size(self) -> tuple[int, int]:
        form = self.model.form
        return self.size or (form.get(WIDTH), form.get(HEIGHT))

    def refresh(self) -> None:
        """Starts a plan now (the previous one, if still running, is ignored when it ends)."""
        self._timer.stop()
        self._generation += 1
        if self._stopped:
            return
        self.pending = True
        if self.plan_fn is None:
            self._failed(self._generation, NO_ENGINE)
            return
        missing = [p for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL) if not self.model.form.get(p)]
        if missing:
            self._failed(self._generation, NO_MODELS)
            return
        spec = plan_spec(self.model)
        width, height = self.current_size()
        infos = {d.name: d for d in self.model.devices}
        key = plan_key(spec, width, height, infos)
        cached = None if key is None else self._cache.get(key)
        if cached is not None:
            self.planning.emit()
            self._planned(self._generation, cached)
            return
        plan_fn = self.plan_fn

        def work() -> JobPlan:
            return plan_fn(spec, width, height, infos)

        worker = _PlanWorker(self._generation, work, self)
        worker.planned.connect(lambda gen, plan: self._planned(gen, plan, key))
        worker.failed.connect(self._failed)
        worker.finished.connect(lambda: self._reap(worker))
        self._workers.append(worker)
        self.planning.emit()
        worker.start()

    def _planned(self, generation: int, plan: JobPlan, key: object = None) -> None:
        if key is not None:
            if len(self._cache) >= CACHED_PLANS:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = plan
        if generation == self._generation:
            self.last = plan
            self.pending = False
            self.planned.emit(plan)
            self.settled.emit()

    def _failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self.last = None  # no verdict: the run says what is wrong itself
            self.pending = False
            self.failed.emit(message)
            self.settled.emit()

    def _reap(self, worker: _PlanWorker) -> None:
        if worker in self._workers:
            self._workers.remove(worker)
        worker.deleteLater()

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Waits for running plans to finish (tests)."""
        self._timer.stop()
        return all(w.wait(timeout_ms) for w in list(self._workers))

    def stop(self) -> bool:
        """For good (its window closes, the app quits): no new plan; the running ones' `--plan`
        children are ended and reaped and their threads waited for. True when all ended."""
        self._stopped = True
        self.pending = False
        self._timer.stop()
        self._generation += 1  # a result still on its way is not shown
        return all(w.stop() for w in list(self._workers))
