"""Decoded previews follow the job model's runs: while a run executes with a background decoder
wanted (the `decoded_previews` row; app/pipeline/execute/preview_decoder.decoder_wanted), one
PreviewDecoding watches the run's checkpoint folder and decodes the newest x0 latent on the CPU;
it stops when the runner ends (finished, failed, cancelled, suspended) or the app quits.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from app.core.errors import StepwiseError
from app.jobs.generation import GenerationModel
from app.jobs.preview_decoding import PreviewDecoding
from app.jobs.stage_runner import StageRunner
from app.pipeline import CHECKPOINT_DIR, PREVIEWS_DIR, decoder_threads, decoder_wanted

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

    def _runner_started(self, _runner: StageRunner, kind: str) -> None:
        self.stop()
        run = self.model.run
        if kind != "execute" or run is None or not decoder_wanted(run.spec.devices):
            return
        try:
            engine = self.model.session.engine_binary()
        except (StepwiseError, OSError) as exc:
            log.info("no background preview decoder: %s", exc)
            return
        decoding = PreviewDecoding(
            engine,
            Path(run.spec.models.vae),
            run.dir / PREVIEWS_DIR,
            self,
            threads=decoder_threads(run.spec.devices),
            vae_tiling=run.spec.devices.vae_tiling,
        )
        decoding.decoded.connect(self.decoded.emit)
        decoding.start()
        decoding.watch(str(run.dir / CHECKPOINT_DIR))
        self.current = decoding

    def stop(self) -> None:
        decoding, self.current = self.current, None
        if decoding is not None:
            decoding.stop()
            decoding.deleteLater()
