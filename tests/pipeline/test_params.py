"""The parameter table is the one owner: JobSpec, the CLI's argparse, the sd-cli importer, the
stage keys and the settings are derived from it. Each test fails when a parameter is missing
from one of them, when two flags collide, or when a default differs."""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest

from app.cli.parser import build_parser
from app.cli.run_flags import dest, values_from_args
from app.core.settings import V1_TO_JOB, Settings, load_settings, save_settings
from app.imaging.prepare import PrepareOptions
from app.pipeline.cache.keys import stage_keys
from app.pipeline.job.loras import lora_identities, prompt_loras
from app.pipeline.job.params import (
    BY_NAME,
    PARAMS,
    Param,
    check_value,
    clean_values,
    default_values,
)
from app.pipeline.job.sdcli_import import RUN_COMPAT_FLAGS, SDCLI_FLAGS
from app.pipeline.job.spec import JobSpec, ModelFiles, spec_from_values, values_from_spec
from app.pipeline.run.folder import STAGES

MODELS = ["--diffusion-model", "d", "--llm", "l", "--vae", "v"]


def other(p: Param) -> Any:
    """A valid value of `p` other than its default."""
    if p.kind is bool:
        return not p.default
    if p.choices is not None:
        return next(c for c in p.choices if c != p.default)
    if p.kind is int:
        return min(int(p.default) + 16, int(p.maximum or 2**31)) if p.name != "seed" else 7
    if p.kind is float:
        return 0.5 if p.default != 0.5 else 0.25
    return f"{p.name}-other"


def test_names_and_fields_are_unique() -> None:
    assert len(BY_NAME) == len(PARAMS)
    fields = [p.spec_field for p in PARAMS]
    assert len(set(fields)) == len(fields)


def test_no_two_flags_collide() -> None:
    flags = [f for p in PARAMS for f in p.flags]
    assert len(set(flags)) == len(flags)
    sdcli = [f for p in PARAMS for f in p.sdcli_flags]
    assert len(set(sdcli)) == len(sdcli)
    compat = [f for f, _ in RUN_COMPAT_FLAGS]
    assert not set(compat) & set(flags)
    build_parser()  # argparse itself refuses a flag given twice


def test_every_default_is_valid_and_every_other_value_too() -> None:
    for p in PARAMS:
        assert check_value(p, p.default) == (True, p.default), p.name
        assert check_value(p, other(p))[0], p.name


def test_jobspec_defaults_are_the_tables() -> None:
    spec = JobSpec(models=ModelFiles("", "", ""), prompt="")
    assert values_from_spec(spec) == default_values()
    assert values_from_spec(dataclasses.replace(spec, prepare=PrepareOptions())) == (
        default_values()
    )
    assert spec_from_values(default_values()).prepare == PrepareOptions()


def test_every_parameter_reaches_its_jobspec_field() -> None:
    for p in PARAMS:
        values = {**default_values(), p.name: other(p)}
        spec = spec_from_values(values, image="i.png", mask="m.png", refs=("r.png",))
        assert values_from_spec(spec) == values, p.name
        assert (spec.image, spec.mask, spec.refs) == ("i.png", "m.png", ("r.png",))


def test_clean_values_replaces_bad_values_and_drops_unknown_keys() -> None:
    raw = {
        "steps": "ten",
        "cfg_scale": 2,
        "align": "diagonal",
        "seed": -5,
        "mystery": 1,
        "only_masked": 1,
        "prompt": "a fox",
    }
    values, bad = clean_values(raw)
    assert sorted(bad) == ["align", "only_masked", "seed", "steps"]
    assert values == {**default_values(), "cfg_scale": 2.0, "prompt": "a fox"}
    assert isinstance(values["cfg_scale"], float)


# --- the CLI --------------------------------------------------------------------------------
def _run_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["run", *MODELS, *argv])


def test_every_parameter_is_a_run_flag_with_the_tables_default() -> None:
    run = next(
        a
        for a in build_parser()._subparsers._group_actions[0].choices.values()  # type: ignore[union-attr]
        if a.prog.endswith(" run")
    )
    by_dest = {a.dest: a for a in run._actions}
    for p in PARAMS:
        action = by_dest[dest(p)]
        assert set(p.flags) <= set(action.option_strings), p.name
        assert p.help in (action.help or "").replace("%%", "%"), p.name
        if p.choices is not None:
            assert tuple(action.choices or ()) == p.choices, p.name
    values, _ = values_from_args(_run_args(), None)
    assert values == {  # a model path given on the command line means this folder's file
        **default_values(),
        "diffusion_model": os.path.abspath("d"),
        "llm_model": os.path.abspath("l"),
        "vae_model": os.path.abspath("v"),
    }


def test_every_run_flag_sets_its_parameter() -> None:
    for p in PARAMS:
        value = other(p)
        if p.kind is bool:
            argv = [p.flags[0] if value else "--no-" + p.flags[0][2:]]
        else:
            argv = [p.flags[-1], str(value)]
        values, _ = values_from_args(_run_args(*argv), None)
        paths = ("diffusion_model", "llm_model", "vae_model", "lora_dir")
        expected = os.path.abspath(str(value)) if p.name in paths else value
        assert values[p.name] == expected, p.name


def test_run_takes_models_and_devices_from_the_settings_only() -> None:
    job = {
        "diffusion_model": "D",
        "llm_model": "L",
        "vae_model": "V",
        "vae_device": "vulkan0",
        "steps": 9,
        "prompt": "from the GUI",
    }
    values, _ = values_from_args(build_parser().parse_args(["run", "-p", "x"]), job)
    assert (values["diffusion_model"], values["vae_device"]) == ("D", "vulkan0")
    assert values["steps"] == default_values()["steps"] and values["prompt"] == "x"
    values, notes = values_from_args(
        build_parser().parse_args(
            [
                "run",
                "-p",
                "x",
                "--device",
                "vulkan1",
                "--backend",
                "te=cpu",
                "--vae-device",
                "vulkan2",
                "--guidance",
                "3",
            ]
        ),
        job,
    )
    assert (values["llm_device"], values["diffusion_device"], values["vae_device"]) == (
        "cpu",
        "vulkan1",
        "vulkan2",
    )
    assert [str(n.code) for n in notes] == ["flag_mapped", "flag_no_effect"]


def test_an_out_of_range_flag_is_a_plain_error() -> None:
    from app.core.errors import StepwiseError

    with pytest.raises(StepwiseError, match="--steps"):
        values_from_args(_run_args("--steps", "0"), None)


# --- the importer ---------------------------------------------------------------------------
def test_the_importers_flag_map_is_the_tables() -> None:
    assert SDCLI_FLAGS == {f: p for p in PARAMS for f in p.sdcli_flags}


# --- the stage keys -------------------------------------------------------------------------
@pytest.fixture()
def lora_dirs(tmp_path: Path) -> tuple[str, str]:
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, content in ((a, b"A" * 10), (b, b"B" * 20)):
        folder.mkdir()
        (folder / "style.safetensors").write_bytes(content)
    return str(a), str(b)


# Which stages read which (the stage graph the keys chain): a stage's change reruns these.
READS = {
    "prepare": (),
    "vae-encode": ("prepare",),
    "llm-encode": (),
    "diffuse": ("prepare", "vae-encode", "llm-encode"),
    "vae-decode": ("diffuse",),
    "composite": ("prepare", "vae-decode"),
}


def _downstream(stage: str) -> set[str]:
    out = {stage}
    while True:
        more = {s for s, reads in READS.items() if out & set(reads)} - out
        if not more:
            return out
        out |= more


def _keys(values: dict[str, Any], txt2img: bool = False) -> dict[str, str | None]:
    image = None if txt2img else "i.png"
    spec = spec_from_values(values, image=image, mask=image and "m.png")
    inputs: dict[str, Any] = (
        {"image": None, "mask": None, "refs": []}
        if txt2img
        else {"image": {"sha256": "i" * 64}, "mask": {"sha256": "m" * 64}, "refs": []}
    )
    # A different model path stands for a different file: the identity is its content.
    models = {
        role: {"size": 1, "fingerprint": getattr(spec.models, role)}
        for role in ("diffusion", "llm", "vae")
    }
    loras = lora_identities(prompt_loras(spec.prompt, spec.models.lora_dir))
    return stage_keys(spec, inputs, models, "engine", loras)


def test_each_parameter_invalidates_its_stage_and_those_after(lora_dirs) -> None:
    base = {
        **default_values(),
        "prompt": "<lora:style:1> a cat",
        "lora_dir": lora_dirs[0],
        "diffusion_model": "d",
        "llm_model": "l",
        "vae_model": "v",
    }
    for p in PARAMS:
        value = lora_dirs[1] if p.name == "lora_dir" else other(p)
        txt2img = p.name in ("width", "height")  # with an image, its size is used
        before = _keys(base, txt2img)
        after = _keys({**base, p.name: value}, txt2img)
        changed = [s for s in STAGES if before[s] != after[s]]
        if p.invalidates is None:
            assert changed == [], p.name
        else:
            expected = [
                s for s in STAGES if s in _downstream(p.invalidates) and before[s] is not None
            ]
            if p.name == "negative_prompt":
                continue  # encoded only when cfg != 1: tests/pipeline/test_keys.py
            assert changed == expected, p.name


# --- the settings ---------------------------------------------------------------------------
def test_settings_job_holds_every_parameter(tmp_path: Path) -> None:
    s = Settings()
    s.job = {p.name: other(p) for p in PARAMS}
    path = tmp_path / "settings.json"
    save_settings(path, s)
    values, bad = clean_values(load_settings(path).job)
    assert bad == [] and values == {p.name: other(p) for p in PARAMS}


def test_version_1_settings_migrate_onto_table_names() -> None:
    # Every version-1 place of a parameter maps onto a row of the table.
    assert set(V1_TO_JOB.values()) <= set(BY_NAME)
    assert Settings().job == {}  # nothing restated: an empty job section means the defaults


def test_a_row_with_an_engine_flag_needs_no_code_to_reach_its_stage(monkeypatch) -> None:
    """A new engine option is a row with `engine_flag` (and its JobSpec field): the one
    builder gives it to the row's stage, and only when it is not the default (issue 39)."""
    from app.engine.stage import Stage
    from app.pipeline.execute import stage_args

    row = dataclasses.replace(BY_NAME["steps"], name="probe", engine_flag="--probe")
    monkeypatch.setattr(stage_args, "PARAMS", (*PARAMS, row))
    models = ModelFiles("d.gguf", "l.gguf", "v.safetensors")
    changed = JobSpec(models=models, prompt="x", steps=7)
    assert stage_args.common_args(changed, Stage.DIFFUSE).to_argv()[-2:] == ["--probe", "7"]
    assert "--probe" not in stage_args.common_args(changed, Stage.LLM_ENCODE).to_argv()
    default = JobSpec(models=models, prompt="x")
    assert "--probe" not in stage_args.common_args(default, Stage.DIFFUSE).to_argv()
