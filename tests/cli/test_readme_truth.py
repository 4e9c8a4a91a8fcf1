"""README and behaviour agree (issue 41 item 9), in process: exit 2 for every bad value before
any stage and 1 only for a failed render; `--seed -1` prints the seed it drew; the hints name the
command the user typed; `status --json` of a bad folder is JSON; no setting name in a message."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from app.cli.exits import Exit
from app.imaging.io import save_png_atomic
from app.pipeline import events as ev
from tests.cli.conftest import cli_here


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    for name in ("d.gguf", "l.gguf"):
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))  # a model's first bytes (preflight)
    (tmp_path / "v.safetensors").write_bytes(b"GGUF" + bytes(28))
    save_png_atomic(tmp_path / "photo.png", np.full((64, 64, 3), 120, np.uint8))
    save_png_atomic(tmp_path / "small-mask.png", np.full((32, 32), 255, np.uint8))
    (tmp_path / "broken.png").write_bytes(b"\x89PNG not a picture")
    return {
        "photo": tmp_path / "photo.png",
        "small_mask": tmp_path / "small-mask.png",
        "broken": tmp_path / "broken.png",
        "missing": tmp_path / "missing.png",
    }


def _run(tmp_path: Path, *extra: str | Path):
    models = [
        "--diffusion-model", tmp_path / "d.gguf", "--llm", tmp_path / "l.gguf",
        "--vae", tmp_path / "v.safetensors", "--engine", tmp_path / "no-such-sd-stage",
    ]  # fmt: skip
    return cli_here("run", *models, "-p", "a red house", "--run-dir", tmp_path / "run", *extra)


@pytest.mark.parametrize(
    "extra",
    [
        ("--steps", "-3"),
        ("-i", "{missing}"),
        ("-i", "{photo}", "--mask", "{small_mask}"),
        ("-i", "{broken}"),
        ("-i", "{photo}", "--mask", "{broken}"),
        ("-r", "{missing}"),
    ],
)
def test_a_bad_value_is_exit_2_before_any_stage(tmp_path: Path, files, extra) -> None:
    given = [word.format(**files) for word in extra]
    done = _run(tmp_path, *given)
    assert done.returncode == Exit.USAGE == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


def test_a_failed_render_is_exit_1(tmp_path: Path, files) -> None:
    done = _run(tmp_path, "--steps", "1")  # no engine: the run starts and its stage fails
    assert done.returncode == Exit.FAILED == 1, done.stdout + done.stderr
    assert "run folder:" in done.stdout and "failed in" in done.stderr


def test_a_random_seed_is_printed_so_it_can_be_repeated(tmp_path: Path, files) -> None:
    done = _run(tmp_path, "--seed", "-1")
    seed = json.loads((tmp_path / "run" / "run.json").read_text())["spec"]["seed"]
    assert seed >= 0
    assert f"seed: {seed}" in done.stdout and f"--seed {seed}" in done.stdout, done.stdout
    again = _run(tmp_path, "--seed", "7", "--run-dir", tmp_path / "run7")
    assert "seed:" not in again.stdout  # a seed the user gave is not news


def test_status_json_of_a_bad_folder_is_json(tmp_path: Path) -> None:
    done = cli_here("status", tmp_path / "nothing", "--json")
    assert done.returncode == Exit.USAGE, done.stdout + done.stderr
    said = json.loads(done.stdout)
    assert said["exit_code"] == Exit.USAGE
    error = said["error"]
    assert error["kind"] == "input" and "not a run folder" in error["message"]
    assert error["template"] == "{path} is not a run folder (no {file})."
    assert error["values"]["file"] == "run.json"
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "run.json").write_text("{garbage")
    done = cli_here("status", damaged, "--json")
    assert done.returncode == Exit.FAILED  # a damaged file Stepwise wrote: not the command line
    assert json.loads(done.stdout)["error"]["kind"] == "damaged"


@pytest.mark.parametrize(
    ("program", "executable", "typed"),
    [
        ("./run.sh", None, "./run.sh resume"),
        ("/opt/my stepwise/run.sh", None, "'/opt/my stepwise/run.sh' resume"),
        ("", None, "python -m app resume"),
        ("", "python/python.exe", "stepwise-cli.exe resume"),
    ],
)
def test_hints_name_the_command_the_user_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, program, executable, typed
) -> None:
    from app.cli.execute import print_event

    monkeypatch.setenv("STEPWISE_PROGRAM", program)
    if executable:  # the installed layout: python\python.exe beside stepwise-cli.exe
        (tmp_path / "python").mkdir()
        (tmp_path / executable).write_bytes(b"")
        (tmp_path / "stepwise-cli.exe").write_bytes(b"")
        monkeypatch.setattr(sys, "executable", str(tmp_path / executable))
    out = io.StringIO()
    assert print_event(ev.RunSuspended(step=3), tmp_path / "run", out) == Exit.SUSPENDED
    assert f"continue with: {typed} {tmp_path / 'run'}" in out.getvalue(), out.getvalue()


def test_no_setting_name_in_a_message(tmp_path: Path, files) -> None:
    (tmp_path / "v.safetensors").unlink()
    done = _run(tmp_path)
    assert done.returncode == Exit.USAGE, done.stderr
    assert "vae_model" not in done.stderr and "--vae" in done.stderr, done.stderr


def test_the_queues_hints_name_the_command_the_user_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pipeline's fixes that name a command (a run folder in the way, a refused job, a
    salvaged database) are written in it too, as data ({command}) the window translates."""
    from app.core.errors import OutputError
    from app.pipeline.queue import worker

    monkeypatch.setenv("STEPWISE_PROGRAM", "./run.sh")
    blocker = tmp_path / "job-1"
    blocker.mkdir()
    (blocker / "photo.png").write_bytes(b"mine")
    with pytest.raises(OutputError) as caught:
        worker._clear_place(blocker)
    assert caught.value.values["command"] == "./run.sh queue retry job-1"
    assert "`./run.sh queue retry job-1`" in caught.value.user_message()
