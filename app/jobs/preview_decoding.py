"""Decoded step previews for the UI: the pipeline's background decoder
(PipelineAPI.preview_decoder) behind Qt signals.

Whoever owns a run creates one PreviewDecoding beside its CallRunner, start()s it when diffuse
starts, feeds every x0 latent the engine reports into latent_ready(step, path) (or calls
watch(checkpoint_folder) once, which finds them without events) and stop()s it
when the run ends, is cancelled or suspended (stop() returns within about a second; no child
process or half-written file stays). `decoded(step, png_path, image)` arrives in the thread
this object lives in (the UI thread), always for a newer step than the one before; nothing
arrives after stop(). The QImage is read on the decoder's thread, so the UI only paints it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QImage

from app.pipeline.api import BackgroundDecoder, DecodedPreview

log = logging.getLogger(__name__)


class PreviewDecoding(QObject):
    """One run's background decoder of x0 latents (VAE on the CPU, low priority)."""

    decoded = Signal(int, str, QImage)  # step, PNG path, the decoded image (full size)

    _arrived = Signal(int, str, QImage)  # from the decoder's thread, queued to ours

    def __init__(
        self,
        make: Callable[[Callable[[DecodedPreview], None]], BackgroundDecoder | None],
        parent: QObject | None = None,
    ) -> None:
        """`make(on_decoded)`: the decoder, e.g. PipelineAPI.preview_decoder for a run (None:
        the job wants none; this object then does nothing)."""
        super().__init__(parent)
        self._decoder = make(self._on_decoded)
        self._live = False
        self._arrived.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @property
    def decoder(self) -> BackgroundDecoder | None:
        """The plain-Python decoder the pipeline gave (None: none is wanted)."""
        return self._decoder

    @property
    def running(self) -> bool:
        return self._live and self._decoder is not None and self._decoder.running

    def start(self) -> None:
        if self._decoder is not None:
            self._live = True
            self._decoder.start()

    @Slot(int, str)
    def latent_ready(self, step: int, path: str) -> None:
        """The engine wrote the x0 latent of `step` at `path` (its `x0` event)."""
        if self._live and self._decoder is not None:
            self._decoder.offer(step, Path(path))

    @Slot(str)
    def watch(self, folder: str) -> None:
        """Instead of latent_ready: find the x0 latents in the run's checkpoint folder by looking
        (PreviewDecoder.watch); needs no event wiring."""
        if self._live and self._decoder is not None:
            self._decoder.watch(Path(folder))

    @Slot()
    def stop(self) -> None:
        """Ends decoding now; idempotent, and no `decoded` is emitted afterwards."""
        self._live = False
        if self._decoder is not None:
            self._decoder.stop()

    def _on_decoded(self, preview: DecodedPreview) -> None:  # the decoder's thread
        image = QImage(str(preview.png))
        if image.isNull():
            log.warning("preview decoding: %s is not an image Qt can read", preview.png)
            return
        self._arrived.emit(preview.step, str(preview.png), image)

    @Slot(int, str, QImage)
    def _deliver(self, step: int, path: str, image: QImage) -> None:
        if self._live:
            self.decoded.emit(step, path, image)
