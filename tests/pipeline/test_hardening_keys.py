"""Issue 17, defects 13 and 14: a stage key depends on exactly what changes the stage's output
(a row at its default, or a rebuild of the same engine inputs, changes nothing; golden keys
pin it), checkpoints are never deleted silently when a key changes, and every engine-bound
row of the parameter table reaches the engine (argv or environment) and its stage's key."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.core.paths import app_paths
from app.engine.argv import build_argv
from app.pipeline import events as ev
from app.pipeline.cache import keys
from app.pipeline.cache.key_sources import KNOWN_BUILDS_FILE
from app.pipeline.control import RunControl
from app.pipeline.execute.fit import job_settings
from app.pipeline.execute.job_plan import stage_args as plan_stage_args
from app.pipeline.execute.stages import STAGE_OBJECTS
from app.pipeline.failures import FailureKind
from app.pipeline.job import params as P
from app.pipeline.job.loras import lora_identities, prompt_loras
from app.pipeline.job.spec import JobSpec, ModelFiles, spec_from_values, values_from_spec
from app.pipeline.run import checkpoints
from app.pipeline.run.folder import ENGINE_STAGES, ModelInputRecord, create_run, open_run
from app.pipeline.runner import Pipeline
from tests.cli.conftest import run_cli

MODELS = {m: {"path": m, "size": 1, "mtime": 0.0, "fingerprint": "f" + m} for m in
          ("diffusion", "llm", "vae")}  # fmt: skip
TXT2IMG: dict[str, Any] = {"image": None, "mask": None, "refs": []}
INPAINT: dict[str, Any] = {
    "image": {"file": "inputs/image.png", "sha256": "ab" * 32},
    "mask": {"file": "inputs/mask.png", "sha256": "cd" * 32},
    "refs": [],
}
# Computed by the keys of main before issue 17 (commit 0b9102d): existing runs keep them.
GOLDEN = {
    "txt2img": {
        "prepare": "72c83404ea3925004100959075dc43126d5a11a86aee2e3a0a5d2880bee4c6f1",
        "llm-encode": "abe416e85cb6abac0885fbcfe32642774c1ab5552b4ccc40082c49f658d13c7d",
        "diffuse": "106bb3b1277913ab1a015ff0b732829e071c152bc7b12f2558ae113927155831",
        "vae-decode": "71b83b0e19b47e5e0769699b1f6640917f154629cd425d5cbe0b1208d32a9d7a",
    },
    "inpaint": {
        "prepare": "0bf86a01d45a9f76c9938cffd794e9d1473af65ed84018d6587bc9915b46a6b6",
        "vae-encode": "3510d53b08b83abf68da9684f888fceb760570f02b09dc019b75a59ca608518c",
        "diffuse": "1b060104c531b536c0f82318ed283f06a1ebdfc85ef3f7885e85824f6797fa9c",
        "composite": "248c483de0489763d44fcfa2a83116a589dd2ecedb2473a9978906947231e8c2",
    },
}


def _spec(**kw: Any) -> JobSpec:
    return JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a red house",
                   **kw)  # fmt: skip


# --- 13: keys ----------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["txt2img", "inpaint"])
def test_golden_keys(case: str) -> None:
    found = keys.stage_keys(
        _spec(), TXT2IMG if case == "txt2img" else INPAINT, MODELS, "build:0123"
    )
    for stage, want in GOLDEN[case].items():
        assert found[stage] == want, stage


@pytest.mark.parametrize("stage", ["prepare", "vae-encode", "llm-encode", "diffuse", "vae-decode"])
def test_a_new_row_at_its_default_changes_no_key(
    monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    before = keys.stage_keys(_spec(), INPAINT, MODELS, "build:0123")
    extra = P.Param("new_knob", int, 7, "new_knob", ("--new-knob",), "a row added later",
                    invalidates=stage)  # fmt: skip
    monkeypatch.setattr(keys, "PARAMS", (*P.PARAMS, extra))
    values = {**values_from_spec(_spec()), "new_knob": 7}
    monkeypatch.setattr(keys, "values_from_spec", lambda spec: values)
    assert keys.stage_keys(_spec(), INPAINT, MODELS, "build:0123") == before
    values["new_knob"] = 8  # a value other than the default does change the stage and after
    changed = keys.stage_keys(_spec(), INPAINT, MODELS, "build:0123")
    assert changed[stage] != before[stage]


def _fake_build(root: Path, stamp_key: str, binary: bytes) -> Path:
    exe = root / "bin" / "sd-stage"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_bytes(binary)
    (root / "stepwise-build.json").write_text(json.dumps({"key": stamp_key, "version": "0.1.0"}))
    return exe


def test_a_rebuild_of_the_same_inputs_keeps_the_engine_version(tmp_path: Path) -> None:
    exe = _fake_build(tmp_path / "b", "inputs-hash-1", b"binary, first build")
    first = Pipeline(app_paths(), cache_limit_mb=16).engine_version(exe)
    exe.write_bytes(b"binary, rebuilt: other bytes, same source and patches")
    again = Pipeline(app_paths(), cache_limit_mb=16).engine_version(exe)
    assert first == again == "build:inputs-hash-1"
    other = _fake_build(tmp_path / "c", "inputs-hash-2", b"binary, first build")
    assert Pipeline(app_paths(), cache_limit_mb=16).engine_version(other) != first
    bare = tmp_path / "elsewhere" / "sd-stage"  # no stamp: the binary's own hash
    bare.parent.mkdir()
    bare.write_bytes(b"x")
    assert Pipeline(app_paths(), cache_limit_mb=16).engine_version(bare) == (
        "sha256:" + hashlib.sha256(b"x").hexdigest()
    )


def test_a_copy_of_a_build_without_its_stamp_keeps_the_builds_keys(tmp_path: Path) -> None:
    """Issue 29, defect 5: the same bytes copied away from their stamp (an installed bundle)
    keep the build's version, so a suspended run resumes instead of starting over."""
    paths = app_paths()
    exe = _fake_build(tmp_path / "b", "inputs-hash-1", b"the binary of build 1")
    assert Pipeline(paths, cache_limit_mb=16).engine_version(exe) == "build:inputs-hash-1"
    copy = tmp_path / "bundle" / "sd-stage"
    copy.parent.mkdir()
    copy.write_bytes(exe.read_bytes())
    assert Pipeline(paths, cache_limit_mb=16).engine_version(copy) == "build:inputs-hash-1"
    # Other bytes without a stamp are their own hash; a damaged memory is a bare hash, no error.
    other = tmp_path / "bundle2" / "sd-stage"
    other.parent.mkdir()
    other.write_bytes(b"another binary")
    digest = hashlib.sha256(b"another binary").hexdigest()
    assert Pipeline(paths, cache_limit_mb=16).engine_version(other) == "sha256:" + digest
    known = paths.data_dir / KNOWN_BUILDS_FILE
    known.write_text("{not json")
    expected = "sha256:" + hashlib.sha256(exe.read_bytes()).hexdigest()
    assert Pipeline(paths, cache_limit_mb=16).engine_version(copy) == expected


def _models(tmp_path: Path) -> ModelFiles:
    for name in ("d.gguf", "l.gguf"):
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))
    (tmp_path / "v.safetensors").write_bytes(b"\x02" + bytes(7) + b"{}")
    return ModelFiles(*(str(tmp_path / n) for n in ("d.gguf", "l.gguf", "v.safetensors")))


def _with_checkpoints(run_dir: Path, key: str) -> list[Path]:
    """Two valid checkpoints (their sha256 in metadata.json) recorded under `key`."""
    folder = run_dir / "checkpoints"
    folder.mkdir()
    entries = {}
    files = []
    for step in (1, 2):
        path = folder / f"step_{step:03d}.bin"
        path.write_bytes(f"x_t after step {step}".encode())
        entries[str(step)] = {
            "file": path.name,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        }
        files.append(path)
    (folder / "metadata.json").write_text(json.dumps({"checkpoints": entries}))
    run = open_run(run_dir)
    run.stage("diffuse").checkpoint_key = key
    run.last_completed_step = 2
    run.steps = 4
    run.save()
    return files


def test_checkpoints_are_kept_when_the_key_changed_under_them(
    tmp_path: Path, sd_stage: Path
) -> None:
    pipeline = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    run = pipeline.create_run(JobSpec(models=_models(tmp_path), prompt="x"), tmp_path / "r")
    files = _with_checkpoints(run.dir, "a key of another engine build")
    saved = {p: p.read_bytes() for p in files}
    events = list(pipeline.execute(run.dir, RunControl()))
    assert not any(isinstance(e, ev.StageStarted) for e in events)
    last = events[-1]
    assert isinstance(last, ev.RunFailed) and last.kind is FailureKind.INPUT, last
    assert "kept" in last.message and "--start-over" in last.message
    assert {p: p.read_bytes() for p in files} == saved
    # the CLI says the same, exit 1, and keeps them
    done = run_cli("resume", run.dir, "--engine", sd_stage)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "kept" in done.stderr and "--start-over" in done.stderr
    assert {p: p.read_bytes() for p in files} == saved
    # the user chooses to start over: then (and only then) they may go
    pipeline.start_over(run.dir)
    checkpoints.check_not_orphaned(open_run(run.dir), "the new key")  # no longer refused
    live = open_run(run.dir)
    checkpoints.reset_if_stale(live, "the new key", 4)
    assert not any(p.exists() for p in files)


def test_a_users_own_change_lets_stale_checkpoints_go(tmp_path: Path) -> None:
    pipeline = Pipeline(app_paths(), Path("/nonexistent/sd-stage"), cache_limit_mb=16)
    run = pipeline.create_run(JobSpec(models=_models(tmp_path), prompt="x"), tmp_path / "r")
    _with_checkpoints(run.dir, "the key they were made with")
    pipeline.update_run(run.dir, {"preview": "none"})  # changes nothing diffuse makes
    assert open_run(run.dir).stage("diffuse").checkpoint_key == "the key they were made with"
    pipeline.update_run(run.dir, {"steps": 6})  # the user's choice: they go without a question
    assert open_run(run.dir).stage("diffuse").checkpoint_key is None


# --- 14: every engine-bound row reaches the engine ---------------------------------------------
# Rows the app itself applies (prepare's options, the memory planner, the preview decoder).
APP_SIDE = frozenset({"fit_memory", "decoded_previews"})
ENGINE_BOUND = [
    p for p in P.PARAMS
    if p.name not in APP_SIDE and not p.spec_field.startswith("prepare.")
    and p.invalidates not in ("prepare", "composite")
]  # fmt: skip
# What a row needs around it to matter at all (sd.cpp ignores it otherwise).
CONTEXT: dict[str, dict[str, Any]] = {
    "negative_prompt": {"cfg_scale": 3.0},
    "vae_tile_size": {"vae_tiling": True},
    "strength": {"_image": True},
    "mask_mode": {"_image": True},  # the mask blends only in an inpaint
    "vae_model": {"_image": True},  # its first stage, vae-encode, runs only with an image
}


def _other_value(p: P.Param) -> Any:
    if p.choices is not None:
        return next(c for c in p.choices if c != p.default)
    if p.kind is bool:
        return not p.default
    if p.kind is str:
        if p.spec_field.startswith("devices."):
            return "vulkan0"
        return "lora-folder" if p.name == "lora_dir" else f"other-{p.name}"
    step = 1 if p.kind is int else 0.25
    value = p.default + step
    if p.maximum is not None and value > p.maximum:
        value = p.default - step
    return p.kind(value)


def _argv_env(tmp_path: Path, values: dict[str, Any], image: bool) -> tuple[list, list]:
    spec = spec_from_values(values, image="photo.png" if image else None,
                              mask="mask.png" if image else None)  # fmt: skip
    run = create_run(tmp_path, spec, tmp_path / f"run-{len(list(tmp_path.iterdir()))}")
    run.model_input = ModelInputRecord(64, 64, None)
    argvs, envs = [], []
    for obj in STAGE_OBJECTS:
        if obj.name not in ENGINE_STAGES or (obj.name == "vae-encode" and not image):
            continue
        args = obj.args(run)  # type: ignore[attr-defined]
        argvs.append([a.replace(str(run.dir), "RUN") for a in build_argv(Path("sd-stage"), args)])
        envs.append(sorted(args.common.environment().items()))
    shutil.rmtree(run.dir)
    return argvs, envs


# Rows the plan leaves out on purpose (stage_args.py: `--plan` loads no weights and resumes
# nothing; the seed is planned as max(seed, 0)); every other row must reach the plan's command
# line too, or the Devices pane, the fit guard and `measure` plan another job than the run.
PLAN_BLIND = frozenset({"seed", "preview", "lora_dir"})
DIT_CONTEXT = 7680  # the plan reads it from the DiT's header; the test has no model file


def _plan_argv(tmp_path: Path, values: dict[str, Any], image: bool) -> list:
    """The plan's command line of every stage the job runs (job_plan.stage_args)."""
    spec = spec_from_values(values, image="photo.png" if image else None,
                              mask="mask.png" if image else None)  # fmt: skip
    scratch = tmp_path / f"plan-{len(list(tmp_path.iterdir()))}"
    scratch.mkdir()
    argvs = []
    for stage in ENGINE_STAGES:
        if stage == "vae-encode" and not image:
            continue
        settings = job_settings(stage, spec.devices)
        args = plan_stage_args(stage, spec, 64, 64, settings, scratch, [DIT_CONTEXT])
        argv = build_argv(Path("sd-stage"), args)
        argvs.append([a.replace(str(scratch), "PLAN") for a in argv])
        argvs.append(sorted(args.common.environment().items()))
    return argvs


def _keys(values: dict[str, Any], image: bool) -> dict[str, str | None]:
    spec = spec_from_values(values)
    models = {  # identities follow the file named (a real run hashes the file)
        m: {**MODELS[m], "path": values[f"{m}_model"], "fingerprint": "f" + values[f"{m}_model"]}
        for m in MODELS
    }
    loras = lora_identities(prompt_loras(spec.prompt, spec.models.lora_dir))
    return keys.stage_keys(spec, INPAINT if image else TXT2IMG, models, "build:0123", loras)


@pytest.mark.parametrize("p", ENGINE_BOUND, ids=lambda p: p.name)
def test_every_engine_bound_row_changes_the_engine_call_and_its_key(
    tmp_path: Path, p: P.Param
) -> None:
    context = dict(CONTEXT.get(p.name, {}))
    image = bool(context.pop("_image", False))
    base = {**P.default_values(), "diffusion_model": "d.gguf", "llm_model": "l.gguf",
            "vae_model": "v.safetensors", "prompt": "a red house", **context}  # fmt: skip
    other = {**base, p.name: _other_value(p)}
    if p is P.LORA_DIR:  # the folder matters through the files the prompt's tags find
        (tmp_path / "loras").mkdir()
        (tmp_path / "loras" / "ink.safetensors").write_bytes(b"a LoRA")
        base["prompt"] = other["prompt"] = "<lora:ink:0.8> a red house"
        other[p.name] = str(tmp_path / "loras")
    assert P.check_value(p, other[p.name])[0], other[p.name]
    assert _argv_env(tmp_path, other, image) != _argv_env(tmp_path, base, image), (
        f"{p.name} = {other[p.name]!r} reaches no engine argv or environment"
    )
    if p.name not in PLAN_BLIND:
        assert _plan_argv(tmp_path, other, image) != _plan_argv(tmp_path, base, image), (
            f"{p.name} = {other[p.name]!r} reaches the run's command line but not the plan's"
        )
    if p.invalidates is not None:
        assert _keys(other, image)[p.invalidates] != _keys(base, image)[p.invalidates]
    else:  # a switch that changes no result changes no key
        assert _keys(other, image) == _keys(base, image)


def test_the_table_has_engine_bound_rows() -> None:
    names = {p.name for p in ENGINE_BOUND}
    assert {"steps", "seed", "sampler", "cfg_scale", "vae_tile_size", "threads"} <= names
    assert dataclasses.is_dataclass(P.PARAMS[0])
