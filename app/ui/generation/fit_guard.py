"""A run the memory plan says cannot fit never starts silently (issue 30): Run all and Add to
queue stop with the plan's verdict in view and offer what would fit — only the masked area at
a size that fits, a smaller size — or to run anyway; a big photo opened for inpainting offers
"Only masked" up front, once per photo. The verdict is pipeline/plans.unfit_of of the plan
the Devices pane shows (jobs/memory_plan), for the size the model gets.

The guard is a gate, not a race (issue 41): `FitGate.request` holds Run all / Add to queue
while the plan for the job as it is now is still being made ("Checking the memory plan…"),
then starts it, or shows the offer before any stage; an offer taken changes the job and the
held start waits for that job's plan in turn (it starts when it fits)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from app.jobs.generation import GenerationModel
from app.jobs.memory_plan import MemoryPlan
from app.pipeline.job.params import HEIGHT, MASKED_TARGET, ONLY_MASKED, WIDTH
from app.pipeline.plans import JobPlan, Unfit, unfit_of
from app.ui.generation.plan_view import device_title, gb, stage_title

ONLY_MASKED_CHOICE = "only_masked"
SMALLER_CHOICE = "smaller"
ANYWAY_CHOICE = "anyway"


def _tr(text: str) -> str:
    return QCoreApplication.translate("FitGuard", text)


def verdict_text(unfit: Unfit) -> str:
    """The plan's verdict in words: the stage, what it needs, what the device has."""
    if unfit.slow and unfit.largest is not None:
        return _tr(
            "The memory plan says {stage} at {w}×{h} fits {device} only with slow settings "
            "(weights partly in RAM, many times slower). The largest size "
            "without them at this aspect ratio is {lw}×{lh}."
        ).format(
            stage=stage_title(unfit.stage),
            w=unfit.width,
            h=unfit.height,
            device=device_title(unfit.device),
            lw=unfit.largest[0],
            lh=unfit.largest[1],
        )
    return _tr(
        "The memory plan says this job cannot fit: {stage} at {w}×{h} needs {need} on "
        "{device}, which has {available}, even with every memory saver."
    ).format(
        stage=stage_title(unfit.stage),
        w=unfit.width,
        h=unfit.height,
        need=gb(unfit.needed_bytes),
        device=device_title(unfit.device),
        available=gb(unfit.available_bytes),
    )


class UnfitDialog(QDialog):
    """The verdict and the offers; `choice` is the one taken (None: not now / cancel)."""

    def __init__(
        self, unfit: Unfit, model: GenerationModel, starting: bool, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("unfit_dialog")
        self.setWindowTitle(_tr("This job does not fit the device"))
        self.unfit, self.model = unfit, model
        self.choice: str | None = None
        text = QLabel(verdict_text(unfit))
        text.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        buttons = QDialogButtonBox(self)
        self.buttons: dict[str, QPushButton] = {}
        form = model.form
        target = unfit.masked_target()
        picture = model.inputs.image is not None
        if picture and not form.get(ONLY_MASKED) and not (starting and model.mask_empty()):
            size = target or form.get(MASKED_TARGET)
            self._offer(
                buttons,
                ONLY_MASKED_CHOICE,
                _tr("Only the masked area, at about {t}×{t}").format(t=size),
            )
        smaller = self._smaller()
        if smaller is not None:
            self._offer(buttons, SMALLER_CHOICE, smaller)
        if starting:
            self._offer(buttons, ANYWAY_CHOICE, _tr("Run anyway"))
        cancel = buttons.addButton(
            _tr("Cancel") if starting else _tr("Not now"), QDialogButtonBox.ButtonRole.RejectRole
        )
        cancel.clicked.connect(self.reject)
        hint = QLabel(
            _tr("The job is planned again with the change and starts once the plan says it fits.")
            if starting
            else _tr("This photo is large for inpainting at full size.")
        )
        hint.setObjectName("hintLabel")
        hint.setWordWrap(True)
        layout.addWidget(hint)
        layout.addWidget(buttons)
        self.setMinimumWidth(520)

    def _smaller(self) -> str | None:
        """The text of a smaller size's offer, when there is one."""
        largest, target = self.unfit.largest, self.unfit.masked_target()
        if largest is None or largest == (0, 0) or target is None:
            return None
        if self.model.inputs.image is None:
            return _tr("A smaller size: {w}×{h}").format(w=largest[0], h=largest[1])
        if self.model.form.get(ONLY_MASKED):
            return _tr("A smaller masked area: about {t}×{t}").format(t=target)
        return None

    def _offer(self, buttons: QDialogButtonBox, choice: str, text: str) -> None:
        button = buttons.addButton(text, QDialogButtonBox.ButtonRole.AcceptRole)
        button.setObjectName(f"unfit_{choice}")
        button.clicked.connect(lambda: self._choose(choice))
        self.buttons[choice] = button

    def _choose(self, choice: str) -> None:
        self.choice = choice
        self.accept()

    def apply(self) -> None:
        """Sets the form for the offer taken (the plan follows the change)."""
        form, unfit = self.model.form, self.unfit
        target = unfit.masked_target()
        if self.choice == ONLY_MASKED_CHOICE:
            form.set(ONLY_MASKED, True)
            if target is not None:
                form.set(MASKED_TARGET, min(form.get(MASKED_TARGET), target))
        elif self.choice == SMALLER_CHOICE and unfit.largest is not None:
            if self.model.inputs.image is None:
                form.set(WIDTH, unfit.largest[0])
                form.set(HEIGHT, unfit.largest[1])
            elif target is not None:
                form.set(MASKED_TARGET, target)


def current_unfit(plan: MemoryPlan) -> Unfit | None:
    """The verdict of the newest plan, when it is for the size the model gets now."""
    last: JobPlan | None = plan.last
    if last is None or (last.width, last.height) != tuple(plan.current_size()):
        return None
    return unfit_of(last)


class FitGate(QObject):
    """Run all / Add to queue wait here for the plan of the job as it is now, then go on (it
    fits, or no plan can be made: the run says why itself) or stop with the offer; an offer
    taken re-plans the job and the start waits again. One start is held at a time (a newer
    press replaces it)."""

    waiting_changed = Signal(bool)  # True: a start waits for the plan

    def __init__(self, model: GenerationModel, plan: MemoryPlan, parent: QWidget) -> None:
        super().__init__(parent)
        self.model, self.plan, self.parent_widget = model, plan, parent
        self._held: Callable[[], None] | None = None
        self._refused: Callable[[], None] | None = None
        self.dialog: UnfitDialog | None = None
        plan.settled.connect(self._check)

    @property
    def waiting(self) -> bool:
        return self._held is not None

    def request(self, start: Callable[[], None], refused: Callable[[], None] | None = None) -> None:
        """`start` once the plan says the job fits (now, when its plan is known); `refused`
        when the user declines the offer."""
        self._held, self._refused = start, refused
        self._check()

    def cancel(self) -> None:
        if self._held is not None:
            self._held = self._refused = None
            self.model.start_held = False
            self.waiting_changed.emit(False)

    def _check(self) -> None:
        if self._held is None:
            return
        if self.plan.pending:
            self.model.start_held = True
            self.waiting_changed.emit(True)
            self.plan.hurry()
            return
        start, refused = self._held, self._refused
        self._held = self._refused = None
        self.model.start_held = False
        self.waiting_changed.emit(False)
        unfit = current_unfit(self.plan)
        if unfit is None:
            start()
            return
        dialog = UnfitDialog(unfit, self.model, True, self.parent_widget)
        self.dialog = dialog
        dialog.exec()
        if dialog.choice == ANYWAY_CHOICE:
            start()
        elif dialog.choice in (ONLY_MASKED_CHOICE, SMALLER_CHOICE):
            dialog.apply()
            self.plan.schedule()  # the job as changed is planned; the start waits for it
            self.request(start, refused)
        elif refused is not None:
            refused()


class BigPhotoOffer(QObject):
    """A photo opened for inpainting whose plan cannot fit at full size: "Only masked" is
    offered once per photo, as soon as its plan says so."""

    def __init__(
        self, model: GenerationModel, plan: MemoryPlan, parent: QWidget, gate: FitGate
    ) -> None:
        super().__init__(parent)
        self.model, self.plan, self.parent_widget, self.gate = model, plan, parent, gate
        self.offered: set[tuple[int, int]] = set()  # photos asked about (by size)
        self.dialog: UnfitDialog | None = None
        plan.planned.connect(self._planned)

    def _planned(self, _plan: JobPlan) -> None:
        size = self.model.inputs.size
        if size is None or self.model.form.get(ONLY_MASKED) or size in self.offered:
            return
        if self.gate.waiting:  # a start waits for this plan: the gate makes the offer
            self.offered.add(size)
            return
        unfit = current_unfit(self.plan)
        if unfit is None or unfit.stage == "llm-encode":  # the photo's size is not the cause
            return
        self.offered.add(size)
        dialog = UnfitDialog(unfit, self.model, False, self.parent_widget)
        self.dialog = dialog
        dialog.exec()
        dialog.apply()
