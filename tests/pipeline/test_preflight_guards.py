"""Preflight guards of issue 8: a device the engine no longer lists is a DEVICE error naming
the device, what the engine lists and the fix; a mask with no white pixel is the warning
"nothing to repaint" (NoteCode.EMPTY_MASK), never a silent run of the whole picture."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.imaging.io import save_png_atomic
from app.pipeline.execute.failure_kinds import failure_for, failure_kind
from app.pipeline.failures import FailureKind, NoteCode
from app.pipeline.job import preflight
from app.pipeline.job.advice import job_notes
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles

RESUMABLE = frozenset({"euler"})


def _spec(**kw) -> JobSpec:
    return JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a cat", **kw)


def _mask(path: Path, value: int, at: tuple[int, int] | None = None) -> Path:
    mask = np.zeros((64, 96), np.uint8)
    if at is not None:
        mask[at] = value
    save_png_atomic(path, mask)
    return path


def test_listed_devices_pass() -> None:
    spec = _spec(devices=DeviceChoice(llm="cpu", diffusion="vulkan0", vae="vulkan0"))
    preflight.check_devices(spec, ["cpu", "vulkan0"])


def test_a_device_the_engine_no_longer_lists_is_a_device_error_with_the_fix() -> None:
    spec = _spec(devices=DeviceChoice(llm="cpu", diffusion="vulkan1", vae="cpu"))
    with pytest.raises(preflight.DeviceMissingError) as info:
        preflight.check_devices(spec, ["cpu", "vulkan0"])
    error = info.value
    assert failure_kind(error) is FailureKind.DEVICE
    text = error.user_message()
    assert "vulkan1" in text and "diffusion device (--diffusion-device)" in text
    assert "(it finds: cpu, vulkan0)" in text and "cpu always works" in text
    assert "{" not in text
    assert error.message.startswith("The device {device} chosen for")  # a template
    failure = failure_for(error, "diffuse")
    assert failure.kind is FailureKind.DEVICE and "vulkan1" in failure.detail


def test_check_job_checks_the_devices_when_given(tmp_path: Path) -> None:
    spec = _spec(devices=DeviceChoice(llm="vulkan0", diffusion="cpu", vae="cpu"))
    with pytest.raises(preflight.DeviceMissingError, match=r"llm device \(--llm-device\)"):
        preflight.check_job(spec, devices=["cpu"])


def test_a_mask_with_no_white_pixel_is_empty(tmp_path: Path) -> None:
    assert preflight.mask_is_empty(_mask(tmp_path / "black.png", 0))
    # The engine rounds to 0/1: 127 of 255 repaints nothing, 128 repaints its 16-px cell.
    assert preflight.mask_is_empty(_mask(tmp_path / "faint.png", 127, (10, 10)))
    assert not preflight.mask_is_empty(_mask(tmp_path / "one.png", 128, (10, 10)))
    assert not preflight.mask_is_empty(tmp_path / "missing.png")  # its own check says so


def test_an_empty_mask_file_is_the_warning_first(tmp_path: Path) -> None:
    black = _mask(tmp_path / "black.png", 0)
    notes = job_notes(_spec(image="photo.png", mask=str(black)), RESUMABLE)
    assert [n.code for n in notes][:1] == [NoteCode.EMPTY_MASK]
    white = _mask(tmp_path / "white.png", 255, (5, 5))
    codes = [n.code for n in job_notes(_spec(image="photo.png", mask=str(white)), RESUMABLE)]
    assert NoteCode.EMPTY_MASK not in codes


def test_the_painters_empty_mask_warns_instead_of_repainting_everything() -> None:
    spec = _spec(image="photo.png")  # the GUI writes no mask file for an empty mask
    codes = [n.code for n in job_notes(spec, RESUMABLE, mask_empty=True)]
    assert codes[0] is NoteCode.EMPTY_MASK and NoteCode.STRENGTH_NO_MASK not in codes
    codes = [n.code for n in job_notes(spec, RESUMABLE, mask_empty=False)]
    assert NoteCode.EMPTY_MASK not in codes and NoteCode.STRENGTH_NO_MASK in codes
    # Text to image has no mask to be empty.
    assert NoteCode.EMPTY_MASK not in [
        n.code for n in job_notes(_spec(), RESUMABLE, mask_empty=True)
    ]
