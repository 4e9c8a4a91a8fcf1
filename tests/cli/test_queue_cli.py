"""`python -m app queue …` and `resume --accept-step` with the real engine and the tiny models:
kills of the worker, two workers, random-seed variations, accepting a run at step k."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.cli.conftest import REPO_ROOT, run_cli, status_json
from tests.engine.pause_hook import suspend_at

sys.path.insert(0, str(REPO_ROOT / "bench"))

import queue_campaign

pytestmark = pytest.mark.timeout(1500)

TINY = ("-t", "1", "--steps", "2", "-W", "64", "-H", "64")


def _queue_list() -> list[dict]:
    done = run_cli("queue", "list", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _pixels(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


@pytest.mark.skipif(os.name != "posix", reason="killpg: POSIX process groups")
def test_killed_worker_finishes_every_job_once_byte_identical(
    tmp_path: Path, tiny_models, sd_stage, inputs
) -> None:
    models = {"diffusion": tiny_models.diffusion, "llm": tiny_models.llm, "vae": tiny_models.vae}
    image, mask = inputs
    outcome = queue_campaign.campaign(
        3, 3, tmp_path, models, sd_stage, image, mask, steps=2, seed=3, log=False
    )
    report = outcome.table()
    assert len(outcome.kills) == 3, report
    assert outcome.identical == 3, report
    assert outcome.lost == [] and outcome.ran_twice == [], report
    assert outcome.recomputed == [], report  # resumed from the last checkpoint
    assert outcome.folders == 3, report
    assert outcome.temps == [] and outcome.staging_left == [], report
    assert outcome.last_exit == 0, report


def _worker(engine: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as handle:
        return subprocess.Popen(
            [sys.executable, "-m", "app", "queue", "run", "--engine", str(engine)],
            cwd=REPO_ROOT,
            env=dict(os.environ),
            stdout=handle,
            stderr=subprocess.STDOUT,
        )


def test_two_workers_run_each_job_exactly_once(tmp_path: Path, model_args, sd_stage) -> None:
    for n in range(3):
        added = run_cli("queue", "add", *model_args, *TINY, "--seed", str(n), "-p", f"job {n}")
        assert added.returncode == 0, added.stderr
    logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
    workers = [_worker(sd_stage, log) for log in logs]
    codes = [w.wait(timeout=1200) for w in workers]
    texts = [log.read_text() for log in logs]
    assert codes == [0, 0], texts
    started = [queue_campaign.HEADER.match(line) for text in texts for line in text.splitlines()]
    started_ids = sorted(m.group(1) for m in started if m)
    listed = _queue_list()
    assert started_ids == sorted(j["id"] for j in listed), texts  # each exactly once
    assert [j["state"] for j in listed] == ["done"] * 3
    assert all(Path(j["result"]).is_file() for j in listed)
    runs = Path(os.environ["STEPWISE_HOME"]) / "data" / "runs"
    assert sorted(p.name for p in runs.iterdir()) == sorted(j["id"] for j in listed)
    # The prompt is encoded once per job here (three prompts); the VAE encode is not needed.
    assert not queue_campaign.ran_twice(logs)


def test_random_seed_variations_are_recorded_and_reproducible(
    tmp_path: Path, model_args, inputs
) -> None:
    image, mask = inputs
    job = [*model_args, "-t", "1", "--steps", "2", "-p", "a red house", "-i", image, "--mask", mask]
    added = run_cli("queue", "add", *job, "--variations", "2", "--random-seeds", "--json")
    assert added.returncode == 0, added.stderr
    queued = json.loads(added.stdout)
    seeds = [j["seed"] for j in queued]
    assert len(set(seeds)) == 2 and all(isinstance(s, int) and s >= 0 for s in seeds)
    assert {j["variation"]["seeds"] for j in queued} == {"random"}
    assert [j["variation"]["index"] for j in queued] == [0, 1]
    done = run_cli("queue", "run", "--engine", model_args[model_args.index("--engine") + 1])
    assert done.returncode == 0, done.stdout + done.stderr
    listed = _queue_list()
    assert [j["seed"] for j in listed] == seeds  # recorded, not drawn again
    assert [j["state"] for j in listed] == ["done", "done"]
    # The queue's run folders record the seeds too, and the prompt was encoded once.
    assert [status_json(Path(j["run_dir"]))["params"]["seed"] for j in listed] == seeds
    second = {s["name"]: s for s in status_json(Path(listed[1]["run_dir"]))["stages"]}
    assert second["llm-encode"]["cached"] and second["vae-encode"]["cached"]
    results = [Path(j["result"]).read_bytes() for j in listed]
    assert results[0] != results[1]
    # One variation again as a single run with its seed: the same bytes.
    alone = tmp_path / "alone"
    again = run_cli("run", *job, "--seed", str(seeds[1]), "--run-dir", alone)
    assert again.returncode == 0, again.stderr
    assert (alone / "result.png").read_bytes() == results[1]


def _stopped_run(tmp_path: Path, tiny_models, sd_stage, inputs, steps: int) -> Path:
    """A run suspended after its first checkpoints (not all its steps)."""
    from app.core.paths import app_paths
    from app.pipeline import events as ev
    from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
    from app.pipeline.runner import Pipeline

    image, mask = inputs
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a red house",
        image=str(image),
        mask=str(mask),
        steps=steps,
        seed=5,
        devices=DeviceChoice(threads=1),
    )
    pipeline = Pipeline(app_paths(), sd_stage)
    run = pipeline.create_run(spec, tmp_path / "run")
    terminal = suspend_at(pipeline, run.dir, 1)[-1]
    assert isinstance(terminal, ev.RunSuspended), terminal
    assert terminal.step < steps
    return run.dir


def _decode_by_hand(engine: Path, vae: Path, latent: Path, run_dir: Path, out: Path) -> None:
    """sd-stage's vae-decode of `latent`, composited with `python -m app composite`."""
    decoded = out.with_name("decoded-by-hand.png")
    argv = [str(engine), "--stage", "vae-decode", "--vae", str(vae), "--load-latent", str(latent)]
    done = subprocess.run([*argv, "-o", str(decoded), "-t", "1"], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    composite = run_cli(
        "composite", "--prepared", run_dir / "prepared", "--result", decoded, "--out", out
    )
    assert composite.returncode == 0, composite.stderr


def test_accept_step_decodes_that_steps_x0_and_runs_no_later_step(
    tmp_path: Path, tiny_models, sd_stage, inputs
) -> None:
    from app.pipeline.run.checkpoints import valid_checkpoints

    steps = 4
    run_dir = _stopped_run(tmp_path, tiny_models, sd_stage, inputs, steps)
    before = sorted(valid_checkpoints(run_dir))
    k = max(before)
    assert 1 <= k < steps
    x0 = run_dir / "checkpoints" / f"x0_{k:03d}.bin"
    assert x0.is_file()
    diffuse_log = (run_dir / "logs" / "diffuse.log").read_bytes()
    expected = tmp_path / "expected.png"
    _decode_by_hand(sd_stage, tiny_models.vae, x0, run_dir, expected)

    done = run_cli("resume", run_dir, "--accept-step", str(k), "--engine", sd_stage)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[diffuse] step" not in done.stdout and "[diffuse] started" not in done.stdout
    assert "decoding its x0 latent" in done.stdout
    # No step after k ran: no new checkpoint, no new x0, the diffuse log as it was.
    assert sorted(valid_checkpoints(run_dir)) == before
    assert not list((run_dir / "checkpoints").glob(f"x0_{k + 1:03d}.bin"))
    assert (run_dir / "logs" / "diffuse.log").read_bytes() == diffuse_log
    result = run_dir / "result.png"
    assert np.array_equal(_pixels(result), _pixels(expected))
    status = status_json(run_dir)
    assert status["accepted_step"] == k and status["result"] == str(result)
    assert status["last_completed_step"] == k
    text = run_cli("status", run_dir)
    assert f"accepted early at step {k}" in text.stdout
    again = run_cli("resume", run_dir)  # finished: nothing runs
    assert again.returncode == 0 and "already finished" in again.stdout


def test_accept_step_without_its_x0_decodes_the_checkpoint(
    tmp_path: Path, tiny_models, sd_stage, inputs
) -> None:
    from app.engine.tensorfile import read_tensors, write_tensors
    from app.pipeline.run.checkpoints import valid_checkpoints

    run_dir = _stopped_run(tmp_path, tiny_models, sd_stage, inputs, 4)
    k = min(s for s in valid_checkpoints(run_dir) if s > 0)
    (run_dir / "checkpoints" / f"x0_{k:03d}.bin").unlink(missing_ok=True)
    latent = tmp_path / "x_t.bin"
    write_tensors(latent, {"latent": read_tensors(valid_checkpoints(run_dir)[k])["x_t"]})
    expected = tmp_path / "expected.png"
    _decode_by_hand(sd_stage, tiny_models.vae, latent, run_dir, expected)
    done = run_cli("resume", run_dir, "--accept-step", str(k), "--engine", sd_stage)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "decoding its checkpoint latent" in done.stdout
    assert np.array_equal(_pixels(run_dir / "result.png"), _pixels(expected))
    assert status_json(run_dir)["accepted_step"] == k


def test_accept_step_without_a_checkpoint_is_a_clear_message(
    tmp_path: Path, tiny_models, sd_stage, inputs
) -> None:
    run_dir = _stopped_run(tmp_path, tiny_models, sd_stage, inputs, 4)
    done = run_cli("resume", run_dir, "--accept-step", "9", "--engine", sd_stage)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "no valid checkpoint for step 9" in done.stderr
    assert status_json(run_dir)["accepted_step"] is None


def test_queue_add_variations_skip_the_seeds_queued_jobs_of_the_same_settings_have(
    model_args, inputs
) -> None:
    """Issue 30 (8): `--seed 10 --variations 2` twice queued seeds 10 and 11 twice."""
    image, mask = inputs
    job = [*model_args, "--steps", "2", "-p", "a red house", "-i", image, "--mask", mask]
    for _ in range(2):
        added = run_cli("queue", "add", *job, "--seed", "10", "--variations", "2")
        assert added.returncode == 0, added.stderr
    other = run_cli("queue", "add", *job, "--steps", "3", "--seed", "10", "--variations", "2")
    assert other.returncode == 0, other.stderr
    assert [j["seed"] for j in _queue_list()] == [10, 11, 12, 13, 10, 11]
