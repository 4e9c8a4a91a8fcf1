"""The kill campaign, small (bench/kill_campaign.py runs the full 20): SIGKILLs of the CLI and
its engine at random moments across the stages, resumed → byte-identical, no temp files left."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))

import kill_campaign

pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="killpg: POSIX process groups"),
    pytest.mark.timeout(900),
]


def test_killed_runs_resume_byte_identical(tmp_path: Path, tiny_models, sd_stage, inputs) -> None:
    models = {"diffusion": tiny_models.diffusion, "llm": tiny_models.llm, "vae": tiny_models.vae}
    image, mask = inputs
    kills, outcomes = kill_campaign.campaign(
        4, tmp_path, models, sd_stage, image, mask, steps=4, seed=1, log=False
    )
    report = kill_campaign.table(kills, outcomes)
    assert len(kills) == 4, report
    # Aimed at prepare, vae-encode, llm-encode, diffuse in turn: several stages are hit.
    assert len({k.stage for k in kills} & set(kill_campaign.STAGE_ORDER)) >= 3, report
    assert outcomes and all(o.identical for o in outcomes), report
    assert all(o.files_left == [] for o in outcomes), report
    assert all(o.exit_code == 0 for o in outcomes), report


def test_leftover_temps_are_found(tmp_path: Path) -> None:
    """The count the campaign reports sees our temp naming (core/atomic.py) anywhere."""
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / ".run.json.bak.0123456789ab.tmp").write_text("x")
    (tmp_path / "checkpoints" / "step_001.bin.tmp").write_text("x")
    (tmp_path / "result.png").write_text("x")
    assert kill_campaign.leftover_temps(tmp_path) == [
        ".run.json.bak.0123456789ab.tmp",
        str(Path("checkpoints") / "step_001.bin.tmp"),
    ]
