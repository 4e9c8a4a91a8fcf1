"""Issue 17 (hardening, second round) on the command line: NaN, a prompt that is not text, a
bad -o and a folder of the user's own are refused before any stage runs, in one clear line
and exit 1, never a traceback; -o is written whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import CLI_TIMEOUT_S, REPO_ROOT, run_cli


def _run(model_args: list[str], run_dir: Path, *extra: str | bytes):
    return run_cli("run", *model_args, "-p", "a red house", "--run-dir", run_dir, *extra)


def _refused(done: subprocess.CompletedProcess, *names: str) -> str:
    err = done.stderr if isinstance(done.stderr, str) else done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, err
    assert "Traceback" not in err and "bug in Stepwise" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    for name in names:
        assert name in lines[0], err
    return lines[0]


@pytest.mark.parametrize("flag", ["--strength", "--cfg-scale"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_nan_and_infinity_are_refused_before_a_folder(
    tmp_path: Path, model_args, flag: str, value: str
) -> None:
    run_dir = tmp_path / "run"
    _refused(_run(model_args, run_dir, f"{flag}={value}"), flag)  # "-inf" alone looks like a flag
    assert not run_dir.exists()


def test_invalid_utf8_in_the_prompt_is_refused_naming_the_prompt(
    tmp_path: Path, model_args
) -> None:
    run_dir = tmp_path / "run"
    argv = [sys.executable.encode(), b"-m", b"app", b"run"]
    argv += [os.fsencode(a) for a in model_args]
    argv += [b"-p", b"a red \xff house", b"--run-dir", os.fsencode(run_dir)]
    done = subprocess.run(
        argv, cwd=REPO_ROOT, capture_output=True, timeout=CLI_TIMEOUT_S, env=dict(os.environ)
    )
    line = _refused(done, "prompt", "--prompt")
    assert "not text" in line
    assert not run_dir.exists()


def test_an_output_that_is_a_folder_is_refused_first(tmp_path: Path, model_args) -> None:
    run_dir = tmp_path / "run"
    out = tmp_path / "out-folder"
    out.mkdir()
    _refused(_run(model_args, run_dir, "-o", str(out)), str(out), "-o")
    assert not run_dir.exists() and list(out.iterdir()) == []


def test_an_output_under_a_file_is_refused_first(tmp_path: Path, model_args) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"mine")
    run_dir = tmp_path / "run"
    _refused(_run(model_args, run_dir, "-o", str(blocker / "x.png")), str(blocker))
    assert not run_dir.exists() and blocker.read_bytes() == b"mine"


def test_the_output_is_replaced_whole_not_written_in_place(tmp_path: Path, model_args) -> None:
    """A copy written in place changes every hard link of the old file; an atomic one (a new
    file renamed over it) leaves the other link as it was."""
    out = tmp_path / "result.png"
    out.write_bytes(b"the old result")
    twin = tmp_path / "twin.png"
    os.link(out, twin)
    done = _run(
        model_args, tmp_path / "run", "-o", str(out), "--steps", "1", "-W", "64", "-H", "64",
        "-t", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.read_bytes() == (tmp_path / "run" / "result.png").read_bytes()
    assert twin.read_bytes() == b"the old result"


@pytest.mark.parametrize("entry", ["result.png", "inputs/image.png"])
def test_a_folder_of_the_users_files_is_refused_untouched(
    tmp_path: Path, model_args, entry: str
) -> None:
    folder = tmp_path / "mine"
    (folder / entry).parent.mkdir(parents=True)
    (folder / entry).write_bytes(b"the user's picture")
    line = _refused(_run(model_args, folder), str(folder), "--run-dir")
    assert "not empty" in line
    assert (folder / entry).read_bytes() == b"the user's picture"
    assert sorted(p.name for p in folder.iterdir()) == [entry.split("/")[0]]
