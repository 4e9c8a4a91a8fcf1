"""JobSpec serialisation and klein's warnings."""

from __future__ import annotations

import dataclasses

from app.pipeline.spec import (
    JobSpec,
    ModelFiles,
    effective_steps,
    klein_warnings,
    spec_from_dict,
    spec_to_dict,
)

SPEC = JobSpec(models=ModelFiles("d", "l", "v"), prompt="p")


def test_round_trip() -> None:
    spec = dataclasses.replace(SPEC, refs=("a", "b"), image="i.png", mask="m.png")
    assert spec_from_dict(spec_to_dict(spec)) == spec


def test_defaults_are_kleins() -> None:
    assert (SPEC.steps, SPEC.cfg_scale, SPEC.scheduler, SPEC.sampler) == (4, 1.0, "simple",
                                                                          "euler")
    assert klein_warnings(SPEC) == []


def test_warnings() -> None:
    text = " ".join(klein_warnings(dataclasses.replace(SPEC, cfg_scale=7.0)))
    assert "twice" in text
    assert klein_warnings(dataclasses.replace(SPEC, scheduler="discrete"))
    assert klein_warnings(dataclasses.replace(SPEC, sampler="dpm++2m"))
    assert klein_warnings(dataclasses.replace(SPEC, negative_prompt="ugly"))
    assert klein_warnings(dataclasses.replace(SPEC, steps=20))


def test_strength_truncation_matches_sdcpp() -> None:
    img = dataclasses.replace(SPEC, image="i.png", steps=6)
    assert effective_steps(dataclasses.replace(img, strength=0.75)) == 5
    assert effective_steps(dataclasses.replace(img, strength=1.0)) == 6
    assert effective_steps(dataclasses.replace(img, strength=0.1)) == 1
    assert effective_steps(dataclasses.replace(img, strength=0.99)) == 6
