"""`run` stops a job its memory plan says cannot fit, before any stage, with the plan's verdict
and what would fit, and `--force` runs it anyway (issue 30). The plans are the real engine's
(`sd-stage --plan` on the tiny models); the device is made small by its reported memory (a
fault injected into the device listing: 64 MiB of RAM), so the verdict holds on any machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from app.cli.exits import Exit
from app.pipeline.api import DeviceInfo
from app.pipeline.runner import Pipeline

pytestmark = pytest.mark.slow

SMALL = DeviceInfo("cpu", "CPU", total_bytes=64 * 1024**2, free_bytes=64 * 1024**2)


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
