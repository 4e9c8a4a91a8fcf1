"""The Generate panel's status line and the moment each of its messages belongs to.

A message is said at a moment: the run state, the current run and the photo as they are when
it is said. When any of them changes and nothing new is said for the new moment, the message
no longer describes what is on screen ("Preparing the inputs…" after a refusal, "Done…" after
another photo is opened) and the line clears. Replacing a message is saying another one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel

from app.jobs.generation import GenerationModel


class StatusLine(QObject):
    """Owns the label: `say` shows a message tied to the current moment; a change of moment
    with no newer message clears it."""

    def __init__(self, model: GenerationModel, label: QLabel) -> None:
        super().__init__(label)
        self.model, self.label = model, label
        self._said_at: tuple[Any, ...] = self._moment()
        self._photo: object = model.inputs.image
        # Connected after the run view's own slots (made before this): a message it says for
        # the new state is said before the change is seen here, so it is kept.
        model.state_changed.connect(self._moment_may_have_passed)
        model.run_changed.connect(self._moment_may_have_passed)
        model.inputs.changed.connect(self._moment_may_have_passed)

    def _moment(self) -> tuple[Any, ...]:
        run = self.model.run
        return (self.model.state, Path(run.dir) if run is not None else None)

    def say(self, text: str) -> None:
        self.label.setText(text)
        self._said_at = self._moment()
        self._photo = self.model.inputs.image

    def text(self) -> str:
        return self.label.text()

    def _moment_may_have_passed(self, *_: object) -> None:
        # The photo is compared by identity: a mask stroke keeps the same picture array.
        if self._moment() == self._said_at and self.model.inputs.image is self._photo:
            return
        self.label.setText("")
        self._said_at = self._moment()
        self._photo = self.model.inputs.image
