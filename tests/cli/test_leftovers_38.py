"""The leftovers of issue 38 (item 10), each refused the same way by `run` and `queue add`
before any stage: `--preset remove` with no picture, an empty mask, `<lora:…>` with no LoRA
folder; a staging folder that is a file leaves the jobs queued."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.core.paths import app_paths
from tests.cli.conftest import run_cli


def _models(tiny_models) -> list[str]:
    return [
        "--diffusion-model", str(tiny_models.diffusion), "--llm", str(tiny_models.llm),
        "--vae", str(tiny_models.vae),
    ]  # fmt: skip


def _both(tmp_path: Path, tiny_models, *args: str) -> list[str]:
    """The error line of `run` and of `queue add` for the same flags (no engine needed)."""
    engine = ["--engine", str(tmp_path / "no-engine")]
    ran = run_cli("run", *_models(tiny_models), *engine, *args, "--run-dir", tmp_path / "r")
    added = run_cli("queue", "add", *_models(tiny_models), *engine, *args)
    lines = []
    for done in (ran, added):
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        (line,) = [x for x in done.stderr.splitlines() if x.startswith("error:")]
        lines.append(line)
    assert not (tmp_path / "r").exists()
    return lines


def test_a_preset_that_edits_a_picture_needs_one(tmp_path: Path, tiny_models) -> None:
    ran, added = _both(tmp_path, tiny_models, "--preset", "remove")
    assert ran == added and "--preset remove" in ran and "-i" in ran


def test_an_empty_mask_is_refused_by_both(tmp_path: Path, tiny_models) -> None:
    image, mask = tmp_path / "p.png", tmp_path / "m.png"
    Image.new("RGB", (64, 64), (200, 100, 50)).save(image)
    Image.fromarray(np.zeros((64, 64), np.uint8)).save(mask)
    ran, added = _both(tmp_path, tiny_models, "-p", "a cat", "-i", str(image), "--mask", str(mask))
    assert ran == added and "The mask is empty" in ran


def test_a_lora_with_no_lora_folder_is_refused_by_both(tmp_path: Path, tiny_models) -> None:
    ran, added = _both(tmp_path, tiny_models, "-p", "a cat <lora:missing:1.0>")
    assert ran == added and "missing" in ran and "LoRA" in ran


@pytest.mark.timeout(300)
def test_a_staging_folder_that_is_a_file_leaves_the_jobs_queued(
    tmp_path: Path, tiny_models
) -> None:
    added = run_cli("queue", "add", *_models(tiny_models), "-p", "a cat", "--variations", "2")
    assert added.returncode == 0, added.stderr
    staging = app_paths().data_dir / "queue" / "staging"
    staging.write_text("mine")
    ran = run_cli("queue", "run", "--engine", str(tmp_path / "no-engine"))
    said = ran.stdout + ran.stderr
    assert "Traceback" not in said and str(staging) in said, said
    listed = run_cli("queue", "list")
    assert listed.stdout.count("queued") == 2, listed.stdout
    assert staging.read_text() == "mine"


def test_a_job_failed_over_the_users_folder_says_retry_and_retry_works(
    tmp_path: Path, tiny_models
) -> None:
    added = run_cli("queue", "add", *_models(tiny_models), "-p", "a cat", "--json")
    assert added.returncode == 0, added.stderr
    import json

    (job,) = json.loads(added.stdout)
    place = app_paths().runs_dir / job["id"]
    place.mkdir(parents=True)
    (place / "mine.txt").write_text("the user's")
    ran = run_cli("queue", "run", "--engine", str(tmp_path / "no-engine"))
    assert f"queue retry {job['id']}" in ran.stdout + ran.stderr
    assert "failed" in run_cli("queue", "list").stdout
    (place / "mine.txt").unlink()
    place.rmdir()
    again = run_cli("queue", "retry", job["id"])
    assert again.returncode == 0, again.stderr
    listed = run_cli("queue", "list", "--json")
    assert [j["state"] for j in json.loads(listed.stdout)] == ["queued"]
