"""JobSpec serialisation and klein's advice (advice.job_notes)."""

from __future__ import annotations

import dataclasses

import pytest

from app.pipeline.failures import NoteCode
from app.pipeline.job.advice import job_notes
from app.pipeline.job.spec import JobSpec, ModelFiles, effective_steps, spec_from_dict, spec_to_dict

SPEC = JobSpec(models=ModelFiles("d", "l", "v"), prompt="p")
# What an engine's --list-samplers says; the advice never assumes a set of its own.
RESUMABLE = frozenset({"euler", "euler_a", "heun", "dpm2", "dpm++2s_a"})


def _codes(spec: JobSpec, resumable: frozenset[str] = RESUMABLE) -> list[NoteCode]:
    return [n.code for n in job_notes(spec, resumable)]


def test_round_trip() -> None:
    spec = dataclasses.replace(SPEC, refs=("a", "b"), image="i.png", mask="m.png")
    assert spec_from_dict(spec_to_dict(spec)) == spec


def test_defaults_are_kleins() -> None:
    assert (SPEC.steps, SPEC.cfg_scale, SPEC.scheduler, SPEC.sampler) == (
        4,
        1.0,
        "simple",
        "euler",
    )
    assert job_notes(SPEC, RESUMABLE) == []


def test_notes() -> None:
    cfg = job_notes(dataclasses.replace(SPEC, cfg_scale=7.0), RESUMABLE)
    assert [(n.code, n.params) for n in cfg] == [(NoteCode.CFG_NOT_ONE, {"cfg": 7.0})]
    assert _codes(dataclasses.replace(SPEC, scheduler="discrete")) == [
        NoteCode.SCHEDULER_NOT_SIMPLE
    ]
    assert _codes(dataclasses.replace(SPEC, negative_prompt="ugly")) == [NoteCode.NEGATIVE_UNUSED]
    assert _codes(dataclasses.replace(SPEC, steps=20)) == [NoteCode.MANY_STEPS]
    assert _codes(dataclasses.replace(SPEC, width=500)) == [NoteCode.SIZE_NOT_ALIGNED]
    img = dataclasses.replace(SPEC, image="i.png", steps=6, strength=0.5)
    (note,) = job_notes(img, RESUMABLE)
    assert (note.code, note.params) == (
        NoteCode.STRENGTH_STEPS,
        {"strength": 0.5, "run": 4, "steps": 6},
    )


def test_the_sampler_note_follows_the_engines_resumable_set() -> None:
    # The bug of issue 7: the warning was inverted. It is exactly "not in the engine's set".
    for sampler in ("euler_a", "dpm++2s_a", "euler"):
        assert NoteCode.SAMPLER_NOT_RESUMABLE not in _codes(
            dataclasses.replace(SPEC, sampler=sampler)
        )
    for sampler in ("dpm++2m", "ipndm"):
        assert _codes(dataclasses.replace(SPEC, sampler=sampler)) == [
            NoteCode.SAMPLER_NOT_RESUMABLE
        ]
    assert _codes(SPEC, frozenset({"heun"})) == [NoteCode.SAMPLER_NOT_RESUMABLE]


def test_strength_truncation_matches_sdcpp() -> None:
    img = dataclasses.replace(SPEC, image="i.png", steps=6)
    assert effective_steps(dataclasses.replace(img, strength=0.75)) == 5
    assert effective_steps(dataclasses.replace(img, strength=1.0)) == 6
    assert effective_steps(dataclasses.replace(img, strength=0.1)) == 1
    assert effective_steps(dataclasses.replace(img, strength=0.99)) == 6


@pytest.mark.parametrize(
    ("field", "bad"),
    [("eta", "0.5"), ("devices.threads", "4"), ("devices.mmap", 1), ("devices.llm", 0),
     ("models.lora_dir", None), ("steps", True), ("cfg_scale", "1")],
)  # fmt: skip
def test_every_row_of_the_table_is_type_checked_when_read(field: str, bad: object) -> None:
    """run.json is read from disk: each row has the kind the parameter table says, the device
    rows and eta too (issue 39: 13 fields were listed by hand)."""
    data = spec_to_dict(JobSpec(models=ModelFiles("d", "l", "v"), prompt="a"))
    spec_from_dict(data)  # the good one reads
    head, _, tail = field.rpartition(".")
    (data[head] if head else data)[tail] = bad
    with pytest.raises(TypeError, match=field):
        spec_from_dict(data)
