"""Decoded previews follow the job model's runs: while a run executes with a background decoder
wanted (the `decoded_previews` row: PipelineAPI.preview_decoder gives one), one
PreviewDecoding watches the run's checkpoint folder and decodes the newest x0 latent on the CPU;
it stops when the runner ends (finished, failed, cancelled, suspended) or the app quits.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from app.core.errors import StepwiseError
from app.jobs.call_runner import CallRunner
from app.jobs.generation import GenerationModel
from app.jobs.preview_decoding import PreviewDecoding
from app.pipeline import CHECKPOINT_DIR

log = logging.getLogger(__name__)


class DecodedPreviews(QObject):
    """Starts and stops the background decoder around the model's executing runners."""

    decoded = Signal(int, str, QImage)  # step, PNG path, image (full size)

    def __init__(self, model: GenerationModel, parent: QObject | None = None) -> None:
        super().__init__(parent if parent is not None else model)
        self.model = model
        self.current: PreviewDecoding | None = None
        model.runner_started.connect(self._runner_started)
        model.runner_ended.connect(lambda _kind: self.stop())

    def _runner_started(self, _runner: CallRunner, kind: str) -> None:
        self.stop()
        run = self.model.run
        if kind != "execute" or run is None:
            return
        pipeline, folder = self.model.session.pipeline, run.dir
        try:
            decoding = PreviewDecoding(lambda on: pipeline.preview_decoder(folder, on), self)
        except (StepwiseError, OSError) as exc:
            log.info("no background preview decoder: %s", exc)
            return
        if decoding.decoder is None:  # the job wants none
            decoding.deleteLater()
            return
        decoding.decoded.connect(self.decoded.emit)
        decoding.start()
        decoding.watch(str(run.dir / CHECKPOINT_DIR))
        self.current = decoding

    def stop(self) -> None:
        decoding, self.current = self.current, None
        if decoding is not None:
            decoding.stop()
            decoding.deleteLater()
