"""The sampler never advances the reference tokens (issue 30; InvokeAI #9507 → #9510 traced a
~20 % shift of klein's images to references concatenated onto the sampled tensor once, so every
step integrated them).

What the engine lets us observe without a native change: every checkpoint of diffuse holds the
picture's latent only (the same shape as the init latent: no reference tokens ride along in the
sampled tensor), every step's x0 too, and the reference latents the run was given are the ones
its metadata names, unchanged after all the steps. Whether the references inside one forward
stay untouched between steps needs a hook in the engine (a dump of the reference tokens per
step); the checkpoints are the closest the protocol comes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from app.engine.tensorfile import read_tensors
from app.pipeline.run.records import CHECKPOINT_DIR
from tests.cli.conftest import run_cli

STEPS = 3


def test_reference_latents_are_not_sampled(tmp_path: Path, model_args, inputs) -> None:
    image, mask = inputs
    run_dir = tmp_path / "ref"
    done = run_cli(
        "run", *model_args, "-i", image, "--mask", mask, "--source-ref", "-p", "a red ball",
        "--run-dir", run_dir, "--steps", str(STEPS), "-t", "1", "--preview", "none",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    refs = run_dir / "ref_latents.bin"
    before = read_tensors(refs)
    assert sorted(before) == ["ref_0"]
    init = read_tensors(run_dir / "init_latent.bin")["latent"]
    folder = run_dir / CHECKPOINT_DIR
    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    assert meta["inputs"]["ref_latents"] == hashlib.sha256(refs.read_bytes()).hexdigest()
    steps = sorted(folder.glob("step_*.bin"))
    assert len(steps) >= STEPS  # step_000 is the starting latent
    for step in steps:
        (tensor,) = read_tensors(step).values()
        assert tensor.shape == init.shape, step.name  # the picture's tokens only
    for x0 in sorted(folder.glob("x0_*.bin")):
        assert read_tensors(x0)["latent"].shape == init.shape, x0.name
