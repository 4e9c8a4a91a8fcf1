"""CLI behaviour that needs no engine: status of fresh and damaged runs, usage errors."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.paths import app_paths
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.runner import STAGES, Pipeline
from tests.cli.conftest import cli_here as run_cli  # in process: no engine here


def _fresh_run(tmp_path: Path):
    for name in ("d.gguf", "l.gguf", "v.safetensors"):
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))  # a model's first bytes (preflight)
    spec = JobSpec(
        models=ModelFiles(
            str(tmp_path / "d.gguf"), str(tmp_path / "l.gguf"), str(tmp_path / "v.safetensors")
        ),
        prompt="a fox",
    )
    return Pipeline(app_paths(), cache_limit_mb=16).create_run(spec, tmp_path / "run")


def test_status_of_a_fresh_run(tmp_path: Path) -> None:
    run = _fresh_run(tmp_path)
    done = run_cli("status", run.dir, "--json")
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert [s["name"] for s in status["stages"]] == list(STAGES)
    assert all(
        s["state"] == "pending" and s["cached"] is False and s["seconds"] is None
        for s in status["stages"]
    )
    assert status["steps"] is None and status["last_completed_step"] == 0
    assert status["result"] is None
    text = run_cli("status", run.dir)
    assert text.returncode == 0 and "llm-encode" in text.stdout


def test_status_of_a_damaged_run_fails_plainly(tmp_path: Path) -> None:
    run = _fresh_run(tmp_path)
    (run.dir / "run.json").write_text("{garbage")
    (run.dir / "run.json.bak").unlink(missing_ok=True)
    done = run_cli("status", run.dir, "--json")
    assert done.returncode == 1
    assert "damaged" in done.stderr


def test_run_without_models_is_a_plain_error(tmp_path: Path) -> None:
    done = run_cli("run", "-p", "x", "--run-dir", tmp_path / "r")
    assert done.returncode == 2  # a bad command line (README's exit codes)
    assert "--diffusion-model" in done.stderr


def test_missing_engine_fails_with_exit_1(tmp_path: Path) -> None:
    for name in ("d.gguf", "l.gguf", "v.safetensors"):
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))  # a model's first bytes (preflight)
    done = run_cli(
        "run",
        "--diffusion-model",
        tmp_path / "d.gguf",
        "--llm",
        tmp_path / "l.gguf",
        "--vae",
        tmp_path / "v.safetensors",
        "-p",
        "x",
        "--run-dir",
        tmp_path / "r",
        "--engine",
        tmp_path / "no-such-sd-stage",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "engine" in done.stderr.lower()


def test_resume_of_a_finished_or_missing_run(tmp_path: Path) -> None:
    done = run_cli("resume", tmp_path / "nothing")
    assert done.returncode == 2  # the command line named a folder that is not a run
    assert "not a run folder" in done.stderr


def test_run_accepts_the_users_sd_cli_flags(tmp_path: Path) -> None:
    for name in ("d.gguf", "l.gguf", "v.safetensors"):
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))  # a model's first bytes (preflight)
    done = run_cli(
        "run",
        "--diffusion-model",
        tmp_path / "d.gguf",
        "--llm",
        tmp_path / "l.gguf",
        "--vae",
        tmp_path / "v.safetensors",
        "-p",
        "x",
        "--run-dir",
        tmp_path / "r",
        "--guidance",
        "3.5",
        "--steps",
        "10",
        "--sampling-method",
        "euler",
        "--diffusion-fa",
        "--vae-tiling",
        "--backend",
        "te=cpu,diffusion=vulkan1,vae=vulkan1",
        "--params-backend",
        "cpu",
        "--mmap",
        "--max-vram",
        "6",
        "--engine",
        tmp_path / "no-such-sd-stage",
    )
    assert done.returncode == 1  # no engine here; the flags themselves are accepted
    assert "--guidance 3.5 does nothing" in done.stdout
    assert "--max-vram 6" in done.stdout and "--params-backend cpu" in done.stdout
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["spec"]["devices"]["llm"] == "cpu"
    assert run["spec"]["devices"]["diffusion"] == "vulkan1"
    assert run["spec"]["devices"]["vae"] == "vulkan1"
    assert run["spec"]["devices"]["vae_tiling"] is True


def test_relative_model_paths_mean_the_terminals_folder(tmp_path: Path, monkeypatch) -> None:
    """`run --vae models/vae.safetensors` from a terminal: the engine runs in another folder, so
    the path it gets is absolute (it said "does not exist" before)."""
    from app.cli.parser import build_parser
    from app.cli.run_flags import values_from_args

    monkeypatch.chdir(tmp_path)
    args = build_parser().parse_args(
        ["run", "--diffusion-model", "m/dit.gguf", "--llm", "m/llm.gguf", "--vae",
         str(tmp_path / "abs.safetensors"), "--lora-model-dir", "loras", "-p", "x"]
    )  # fmt: skip
    values, _ = values_from_args(args, None)
    assert values["diffusion_model"] == str(tmp_path / "m" / "dit.gguf")
    assert values["llm_model"] == str(tmp_path / "m" / "llm.gguf")
    assert values["vae_model"] == str(tmp_path / "abs.safetensors")
    assert values["lora_dir"] == str(tmp_path / "loras")
