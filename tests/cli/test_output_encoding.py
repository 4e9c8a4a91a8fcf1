"""Output that a pipe or a file receives (issue 37, bug 3): Windows encodes a redirected stream
in the ANSI code page (cp1252; cp936 on a Chinese Windows), which cannot write 模型 or é, so
printing such a path raised UnicodeEncodeError. PYTHONIOENCODING=cp1252 makes the same stream
here; the app writes UTF-8 to it instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PIL import Image

REPO_ROOT = Path(__file__).resolve().parents[2]
FOLDER = "模型 é"


def _cli_cp1252(home: Path, *args: str | Path) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONIOENCODING="cp1252", STEPWISE_HOME=str(home))
    env.pop("PYTHONUTF8", None)
    return subprocess.run(
        [sys.executable, "-m", "app", *map(str, args)],
        cwd=REPO_ROOT,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_non_ascii_path_prints_to_a_cp1252_pipe(tmp_path: Path) -> None:
    folder = tmp_path / FOLDER
    folder.mkdir()
    Image.new("RGB", (32, 32), "red").save(folder / "image.png")
    Image.new("L", (32, 32), 255).save(folder / "mask.png")
    done = _cli_cp1252(
        tmp_path / "home", "prepare", folder / "image.png", "--mask", folder / "mask.png",
        "--out", folder / "out",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-3000:]
    assert f"{FOLDER}/out" in done.stdout.decode("utf-8")


def test_an_error_with_a_non_ascii_path_is_readable_on_a_cp1252_pipe(tmp_path: Path) -> None:
    done = _cli_cp1252(tmp_path / "home", "status", tmp_path / FOLDER / "no run")
    assert done.returncode != 0
    assert f"{FOLDER}/no run" in done.stderr.decode("utf-8"), done.stderr
