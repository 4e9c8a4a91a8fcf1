"""The short bad-input campaign (bench/bad_input_campaign.py --short, issue 17): a
representative case of each group, on the real engine and the tiny models. Every one is
refused before the first stage, with no traceback, no "bug in Stepwise" and no file of the
user's changed."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.cli.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))

from bad_input_campaign import cases, make_world, run_campaign, summary


def test_the_short_campaign_refuses_everything_cleanly(
    tmp_path: Path, sd_stage: Path, tiny_models
) -> None:
    world = make_world(tmp_path, sd_stage, tiny_models)
    outcomes = run_campaign(world, short=True)
    groups = {o.group for o in outcomes}
    assert {"values", "prompts", "paths", "folders", "links", "png"} <= groups
    assert len(outcomes) >= 10
    s = summary(outcomes)
    rows = "\n".join(f"{o.name}: {o}" for o in outcomes)
    assert s["tracebacks"] == 0, rows
    assert s["bug_in_stepwise"] == 0, rows
    assert s["user_files_changed"] == 0, rows
    assert s["not_refused"] == [] and s["refused_late"] == [], rows
    assert all(o.detail for o in outcomes if o.group != "png"), rows  # each says why


def test_the_full_campaign_has_at_least_60_cases() -> None:
    assert len(cases()) >= 60
