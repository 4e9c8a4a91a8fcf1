"""The real sd-stage with non-ASCII paths, and the raw bytes of its event lines.

Runs against whatever engine the `sd_stage` fixture gives: the Linux build, or the Windows
build under wine (scripts/windows_engine_tests.py sets STEPWISE_TEST_ENGINE and
STEPWISE_TEST_ENGINE_OS=windows). On Windows a user profile such as C:\\Users\\张伟 puts every
model and run folder on a non-ASCII path; stdout is in text mode there, so every event line
ends in \\r\\n.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.engine.argv import LlmEncodeArgs, build_argv
from app.engine.events import Done, Hello, parse_event
from app.engine.tensorfile import read_tensors
from tests.engine.real_engine import COND, FINAL_LATENT, IMAGE, STAGE_TIMEOUT_S, Job, run_staged
from tests.models.generate import ModelSet

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

NON_ASCII = "uni-模型-é"
WINDOWS_ENGINE = os.environ.get("STEPWISE_TEST_ENGINE_OS") == "windows"
SMALL = Job(width=64, height=64, steps=2)


def _copy_models(models: ModelSet, folder: Path) -> ModelSet:
    folder.mkdir(parents=True)
    copies = {}
    for name in ("diffusion", "llm", "vae"):
        source: Path = getattr(models, name)
        copies[name] = folder / f"{name}-模型{source.suffix}"
        shutil.copyfile(source, copies[name])
    return ModelSet(**copies)


def test_non_ascii_model_and_run_folders_give_the_same_result(
    sd_stage: Path, tiny_models: ModelSet, tmp_path: Path
) -> None:
    ascii_out = tmp_path / "ascii" / "run"
    run_staged(sd_stage, tiny_models, SMALL, ascii_out)
    root = tmp_path / NON_ASCII
    models = _copy_models(tiny_models, root / "models")
    out = root / "运行-é" / "run"
    runs = run_staged(sd_stage, models, SMALL, out)
    assert [run.returncode for run in runs.values()] == [0, 0, 0]
    for name in (COND, FINAL_LATENT):
        assert sorted(read_tensors(out / name)) == sorted(read_tensors(ascii_out / name))
        assert (out / name).read_bytes() == (ascii_out / name).read_bytes(), name
    assert (out / IMAGE).read_bytes() == (ascii_out / IMAGE).read_bytes()


def test_event_lines_end_as_the_platform_writes_them_and_all_parse(
    sd_stage: Path, tiny_models: ModelSet, tmp_path: Path
) -> None:
    args = LlmEncodeArgs(llm=tiny_models.llm, prompt="a fox", save_embeddings=tmp_path / COND)
    result = subprocess.run(
        build_argv(sd_stage, args),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=STAGE_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    raw = result.stdout
    assert raw.endswith(b"\n")
    lines = raw[:-1].split(b"\n")
    assert len(lines) >= 2
    ending = b"\r" if WINDOWS_ENGINE else b""
    assert [line.endswith(b"\r") for line in lines] == [bool(ending)] * len(lines)
    events = [parse_event(line) for line in lines]  # the client's own parser, \r and all
    assert isinstance(events[0], Hello)
    assert isinstance(events[-1], Done)
    assert (tmp_path / COND).is_file()
