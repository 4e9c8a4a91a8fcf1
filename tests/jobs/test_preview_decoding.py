"""PreviewDecoding: decoded x0 previews as a Qt signal, with the real engine's vae-decode."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QImage

from app.engine.tensorfile import write_tensors
from app.jobs.preview_decoding import PreviewDecoding
from app.pipeline.execute.preview_decoder import PreviewDecoder, decoded_png_name

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

DECODE_TIMEOUT_MS = 300_000


def _latent(path: Path, seed: int) -> Path:
    """An x0-shaped latent file (a 96×128 px image); any latent decodes."""
    rng = np.random.default_rng(seed)
    write_tensors(path, {"latent": rng.standard_normal((1, 128, 6, 8)).astype(np.float32)})
    return path


def _rgb(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    ptr = image.constBits()
    rows = np.frombuffer(ptr, np.uint8, image.bytesPerLine() * image.height())
    rows = rows.reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 3].reshape(image.height(), image.width(), 3).copy()


def test_latent_ready_delivers_the_decoded_image(qtbot, sd_stage, tiny_models, tmp_path) -> None:
    decoding = PreviewDecoding(
        lambda on: PreviewDecoder(sd_stage, tiny_models.vae, tmp_path / "previews", on)
    )
    decoding.start()
    try:
        with qtbot.waitSignal(decoding.decoded, timeout=DECODE_TIMEOUT_MS) as blocker:
            decoding.latent_ready(4, str(_latent(tmp_path / "x0_004.bin", 4)))
        step, path, image = blocker.args
        assert step == 4
        assert path == str(tmp_path / "previews" / decoded_png_name(4))
        assert (image.width(), image.height()) == (128, 96)
        assert np.array_equal(_rgb(image), np.asarray(Image.open(path).convert("RGB")))
    finally:
        decoding.stop()
    assert not decoding.running


def test_nothing_arrives_after_stop(qtbot, sd_stage, tiny_models, tmp_path) -> None:
    # The child holds in its VAE load until the stop ends it (the test hook): a tiny decode
    # otherwise ended before "the child is running" was seen, on a loaded machine (a
    # fresh clone beside two CPU loops waited 300 s for a child that was gone).
    held = {"SD_STAGE_TEST_SLOW_LOAD": "1"}
    decoding = PreviewDecoding(
        lambda on: PreviewDecoder(sd_stage, tiny_models.vae, tmp_path / "previews", on, env=held)
    )
    arrived: list[int] = []
    decoding.decoded.connect(lambda step, path, image: arrived.append(step))
    decoding.start()
    decoding.latent_ready(2, str(_latent(tmp_path / "x0_002.bin", 2)))
    qtbot.waitUntil(lambda: decoding.decoder.child_pid is not None, timeout=DECODE_TIMEOUT_MS)
    decoding.stop()  # mid-decode (the run was cancelled)
    decoding.latent_ready(3, str(_latent(tmp_path / "x0_003.bin", 3)))
    QCoreApplication.processEvents()  # what the stopped decoder had posted is delivered now
    assert arrived == [] and not decoding.running and decoding.decoder.child_pid is None
    assert sorted(os.listdir(tmp_path / "previews")) == ["preview-decoder.log"]


def test_watch_finds_the_engines_x0_files(qtbot, sd_stage, tiny_models, tmp_path) -> None:
    checkpoints = tmp_path / "checkpoints"
    checkpoints.mkdir()
    decoding = PreviewDecoding(
        lambda on: PreviewDecoder(sd_stage, tiny_models.vae, tmp_path / "previews", on)
    )
    decoding.start()
    try:
        decoding.watch(str(checkpoints))
        time.sleep(0.05)
        with qtbot.waitSignal(decoding.decoded, timeout=DECODE_TIMEOUT_MS) as blocker:
            _latent(checkpoints / "x0_007.bin", 7)
        assert blocker.args[0] == 7
    finally:
        decoding.stop()
