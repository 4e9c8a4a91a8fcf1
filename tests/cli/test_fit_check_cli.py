"""`run` stops a job its memory plan says cannot fit, before any stage, with the plan's verdict
and what would fit, and `--force` runs it anyway (issue 30). The plans are the real engine's
(`sd-stage --plan` on the tiny models); the device is made small by its reported memory (a
fault injected into the device listing: 64 MiB of RAM), so the verdict holds on any machine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from app.cli.exits import Exit
from app.pipeline.api import DeviceInfo
from app.pipeline.runner import Pipeline

pytestmark = pytest.mark.slow

SMALL = DeviceInfo("cpu", "CPU", total_bytes=64 * 1024**2, free_bytes=64 * 1024**2)
# A machine with the RAM to hold a phone photo's job with memory savers (the window still says
# it is larger than what runs without them: the verdict the CLI must share).
PHONE_CARD_MACHINE = DeviceInfo("cpu", "CPU", total_bytes=64 * 1024**3, free_bytes=64 * 1024**3)


def test_run_refuses_a_job_that_does_not_fit_and_force_insists(
    tmp_path: Path, model_args: list[str], inputs: tuple[Path, Path], monkeypatch, capsys
) -> None:
    image, mask = inputs
    job = ["run", *model_args, "-p", "a red house", "-i", str(image), "--mask", str(mask)]
    job += ["--steps", "1", "--no-fit-memory"]
    monkeypatch.setattr(Pipeline, "devices", lambda self: [SMALL])
    code = main([*job, "--run-dir", str(tmp_path / "refused")])
    err = capsys.readouterr().err
    assert code == Exit.DOES_NOT_FIT, err
    assert "The memory plan says this job does not fit:" in err
    assert "on cpu, which has 0.1 GB" in err
    assert "--only-masked" in err and "--force" in err and "Traceback" not in err
    assert not (tmp_path / "refused").exists()  # nothing started: no run folder
    # --force runs it (the tiny job fits the real machine).
    code = main([*job, "--force", "--run-dir", str(tmp_path / "forced")])
    assert code == Exit.OK, capsys.readouterr().err
    assert (tmp_path / "forced" / "result.png").is_file()


def test_a_phone_photo_is_refused_before_any_stage_as_the_window_refuses_it(
    tmp_path: Path, model_args: list[str], monkeypatch, capsys
) -> None:
    """Issue 41: `run` with a 4000×3008 photo printed "VAE tiling False → True (the plan did
    not fit the device)" and encoded at full size, while the window refused the same job. The
    CLI asks the same verdict as the window (the largest size that fits without slow settings
    included), on the machine's own devices and memory savers, before any stage."""
    from app.imaging.io import encode_png

    photo, mask = tmp_path / "phone.png", tmp_path / "phone-mask.png"
    photo.write_bytes(encode_png(np.full((3008, 4000, 3), 128, np.uint8)))
    painted = np.zeros((3008, 4000), np.uint8)
    painted[1000:1200, 1500:1800] = 255
    mask.write_bytes(encode_png(painted))
    started: list[object] = []

    def no_stage(self, *args, **kwargs):
        started.append(args)
        raise AssertionError("a run was made: a stage would start")

    monkeypatch.setattr(Pipeline, "create_run", no_stage)
    monkeypatch.setattr(Pipeline, "devices", lambda self: [PHONE_CARD_MACHINE])
    job = ["run", *model_args, "-p", "a red door", "-i", str(photo), "--mask", str(mask)]
    code = main([*job, "--steps", "1", "--run-dir", str(tmp_path / "refused")])
    err = capsys.readouterr().err
    assert started == [] and code == Exit.DOES_NOT_FIT, err
    assert "4000×3008" in err and "--only-masked" in err and "--force" in err
    assert not (tmp_path / "refused").exists()
