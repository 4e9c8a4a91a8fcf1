"""Helpers for the CLI tests: the real engine, the tiny models, small input images."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
CLI_TIMEOUT_S = 300


def run_cli(*args: str | Path, timeout: float = CLI_TIMEOUT_S) -> subprocess.CompletedProcess:
    """`python -m app ARGS` in a child process (STEPWISE_HOME comes from the test's env)."""
    return subprocess.run(
        [sys.executable, "-m", "app", *map(str, args)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )


def cli_here(*args: str | Path) -> subprocess.CompletedProcess:
    """`python -m app ARGS` in this process, as `run_cli` reports it (exit code, stdout,
    stderr): the parser, the exit codes and the texts without a child's start (~0.5 CPU-s:
    the interpreter, cv2 and the pipeline imported again). For commands that start no engine
    and install no signal handler a test relies on; `run_cli` for the rest."""
    from app.__main__ import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    return subprocess.CompletedProcess(
        [sys.executable, "-m", "app", *argv], code, out.getvalue(), err.getvalue()
    )


def status_json(run_dir: Path) -> dict:
    done = run_cli("status", run_dir, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="session")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from app.pipeline.selftest import selftest_images

    return selftest_images(tmp_path_factory.mktemp("inputs"))


@pytest.fixture()
def model_args(tiny_models, sd_stage: Path) -> list[str]:
    return [
        "--diffusion-model",
        str(tiny_models.diffusion),
        "--llm",
        str(tiny_models.llm),
        "--vae",
        str(tiny_models.vae),
        "--engine",
        str(sd_stage),
    ]
