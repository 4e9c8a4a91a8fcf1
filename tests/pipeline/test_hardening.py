"""Issue 17 (hardening, second round), the pipeline's side: every bad value is refused before a
run folder is made, a run folder is never shared or overwritten, no write follows a link, and
a run's odd entries are reported, not raised. Each test names the defect it covers."""

from __future__ import annotations

import errno
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from app.core.errors import InputError, OutputError, StepwiseError
from app.core.paths import app_paths
from app.imaging.png_params import STEPWISE_KEY, itxt_chunk, read_png_parameters, with_text_chunks
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.failures import FailureKind
from app.pipeline.job import params as P
from app.pipeline.job import preflight
from app.pipeline.job.naming import named
from app.pipeline.job.spec import JobSpec, ModelFiles, spec_from_values
from app.pipeline.run.folder import RUN_FILE, remove_leftover_temps
from app.pipeline.run.format import checksum
from app.pipeline.run.lock import RunBusy, RunLock
from app.pipeline.runner import Pipeline

FLOAT_ROWS = [p for p in P.PARAMS if p.kind is float]
NOT_FINITE = (math.nan, math.inf, -math.inf)


def _models(tmp_path: Path) -> ModelFiles:
    """Files with a model's first bytes (the preflight reads them), never loaded."""
    for name in ("d.gguf", "l.gguf"):
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))
    (tmp_path / "v.safetensors").write_bytes(b"\x02" + bytes(7) + b"{}")
    return ModelFiles(*(str(tmp_path / n) for n in ("d.gguf", "l.gguf", "v.safetensors")))


def _pipeline() -> Pipeline:
    return Pipeline(app_paths(), Path("/nonexistent/sd-stage"), cache_limit_mb=16)


def _events(pipeline: Pipeline, run_dir: Path) -> list[ev.Event]:
    return list(pipeline.execute(run_dir, RunControl()))


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# --- 1: NaN and infinities -------------------------------------------------------------------
@pytest.mark.parametrize("p", FLOAT_ROWS, ids=lambda p: p.name)
@pytest.mark.parametrize("value", NOT_FINITE, ids=repr)
def test_every_float_row_refuses_nan_and_infinity(p: P.Param, value: float) -> None:
    assert P.check_value(p, value) == (False, None)
    values, bad = P.clean_values({p.name: value})
    assert bad == [p.name] and values[p.name] == p.default  # settings, form, PNG: all clean


@pytest.mark.parametrize("name", [p.name for p in FLOAT_ROWS])
def test_a_nan_job_is_refused_before_a_folder_is_made(tmp_path: Path, name: str) -> None:
    values = {**P.default_values(), name: math.nan}
    spec = spec_from_values(values)
    spec = spec.__class__(**{**spec.__dict__, "models": _models(tmp_path), "prompt": "x"})
    target = tmp_path / "run"
    with pytest.raises(InputError) as info:
        _pipeline().create_run(spec, target)
    # named in words and by its flag, and carrying its key for the window's own words
    assert named(P.param(name))["name"] in info.value.user_message()
    assert info.value.values.get("param") == name and "nan" in info.value.user_message()
    assert not target.exists()


def test_a_png_carrying_nan_gives_no_nan(tmp_path: Path) -> None:
    from app.imaging.png_params import encode_png_with_parameters

    png = tmp_path / "nan.png"
    spec = {"strength": math.nan, "cfg_scale": math.inf, "steps": 3}
    png.write_bytes(encode_png_with_parameters(np.zeros((8, 8, 3), np.uint8), "x", spec))
    carried = read_png_parameters(png).spec
    values, bad = P.clean_values(carried)
    assert all(math.isfinite(values[p.name]) for p in FLOAT_ROWS)
    assert set(bad) <= {"strength", "cfg_scale"} and values["steps"] == 3


# --- 2: the prompt is clean text --------------------------------------------------------------
@pytest.mark.parametrize(
    "field,text",
    [
        ("prompt", "a red \udcff house"),  # invalid UTF-8 on a command line (surrogateescape)
        ("prompt", "a lone \ud800 surrogate"),
        ("prompt", "a red\x00house"),  # NUL through the API
        ("negative_prompt", "blurry\x00"),
    ],
)
def test_a_prompt_that_is_not_clean_text_is_refused(tmp_path: Path, field: str, text: str) -> None:
    spec = JobSpec(models=_models(tmp_path), **{"prompt": "x", field: text})
    target = tmp_path / "run"
    with pytest.raises(InputError) as info:
        _pipeline().create_run(spec, target)
    message = info.value.user_message()
    assert named(P.param(field))["name"] in message and "Traceback" not in message
    message.encode("utf-8")  # the message itself prints on any terminal
    assert not target.exists()
    assert not app_paths().runs_dir.exists() or not any(app_paths().runs_dir.iterdir())


# --- 4: a folder of the user's own is never written into --------------------------------------
@pytest.mark.parametrize("entry", ["result.png", "inputs/image.png", "notes.txt"])
def test_a_non_empty_folder_that_is_not_a_run_is_refused(tmp_path: Path, entry: str) -> None:
    folder = tmp_path / "mine"
    (folder / entry).parent.mkdir(parents=True, exist_ok=True)
    (folder / entry).write_bytes(b"the user's own file")
    before = _tree(folder)
    with pytest.raises(OutputError) as info:
        _pipeline().create_run(JobSpec(models=_models(tmp_path), prompt="x"), folder)
    assert str(folder) in info.value.user_message() and "--run-dir" in info.value.user_message()
    assert _tree(folder) == before and sorted(os.listdir(folder)) == sorted({entry.split("/")[0]})


def test_an_empty_existing_folder_is_fine(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    run = _pipeline().create_run(JobSpec(models=_models(tmp_path), prompt="x"), folder)
    assert run.dir == folder and (folder / RUN_FILE).is_file()


# --- 5: two runs into one new folder ----------------------------------------------------------
def test_a_folder_locked_by_another_run_is_refused_untouched(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    with RunLock(folder):  # another process creating or executing a run there
        with pytest.raises(RunBusy):
            _pipeline().create_run(JobSpec(models=_models(tmp_path), prompt="x"), folder)
        assert sorted(os.listdir(folder)) == [".lock"]


def test_the_second_create_into_one_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    pipeline = _pipeline()
    first = pipeline.create_run(JobSpec(models=_models(tmp_path), prompt="one"), folder)
    before = _tree(folder)
    with pytest.raises(StepwiseError, match="already holds a run"):
        pipeline.create_run(JobSpec(models=_models(tmp_path), prompt="two"), folder)
    assert _tree(folder) == before and pipeline.snapshot(first.dir).spec.prompt == "one"


# --- 6 and 7: odd entries and links inside a run folder ----------------------------------------
def _made_run(tmp_path: Path) -> Path:
    return _pipeline().create_run(JobSpec(models=_models(tmp_path), prompt="x"), tmp_path / "r").dir


@pytest.mark.parametrize("entry", ["logs", "checkpoints", "logs/diffuse.log", ".lock", "prepared"])
def test_a_link_inside_the_run_is_refused_and_nothing_is_written_through_it(
    tmp_path: Path, entry: str
) -> None:
    run_dir = _made_run(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    link = run_dir / entry
    link.parent.mkdir(parents=True, exist_ok=True)
    link.unlink(missing_ok=True)  # create_run leaves its .lock
    target = outside / "target"
    if "." in entry.split("/")[-1] and entry != ".lock":
        target.write_bytes(b"theirs")
    elif entry != ".lock":
        target.mkdir()
    link.symlink_to(target)
    before = _tree(outside)
    events = _events(_pipeline(), run_dir)
    assert not any(isinstance(e, ev.StageStarted) for e in events)
    last = events[-1]
    assert isinstance(last, ev.RunFailed) and last.kind is not FailureKind.BUG, last
    assert entry in last.message and "link" in last.message, last.message
    assert _tree(outside) == before
    assert not (entry == ".lock" and target.exists())


@pytest.mark.parametrize("entry", ["checkpoints", "logs", "steps"])
def test_a_run_subfolder_that_is_a_file_is_said(tmp_path: Path, entry: str) -> None:
    run_dir = _made_run(tmp_path)
    (run_dir / entry).write_bytes(b"not a folder")
    last = _events(_pipeline(), run_dir)[-1]
    assert isinstance(last, ev.RunFailed) and last.kind is FailureKind.DAMAGED, last
    assert entry in last.message and "not a folder" in last.message


def test_a_lock_that_is_a_folder_is_said(tmp_path: Path) -> None:
    run_dir = _made_run(tmp_path)
    (run_dir / ".lock").unlink()
    (run_dir / ".lock").mkdir()
    last = _events(_pipeline(), run_dir)[-1]
    assert isinstance(last, ev.RunFailed) and last.kind is not FailureKind.BUG, last
    assert ".lock" in last.message


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_a_read_only_run_folder_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    run_dir = _made_run(tmp_path)
    real_open = os.open

    def refusing_open(path, flags, *args):  # the fault
        if str(path).endswith(".lock"):
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr("app.pipeline.run.lock.os.open", refusing_open)
    last = _events(_pipeline(), run_dir)[-1]
    assert isinstance(last, ev.RunFailed) and last.kind is FailureKind.OUTPUT, last
    assert "read-only" in last.message or "cannot be written" in last.message, last.message


# --- 8: a PNG chunk of deeply nested JSON -----------------------------------------------------
def test_deeply_nested_json_in_a_png_means_no_settings(tmp_path: Path) -> None:
    from app.imaging.io import save_png_atomic

    plain = tmp_path / "plain.png"
    save_png_atomic(plain, np.zeros((8, 8, 3), np.uint8))
    deep = "[" * 200_000 + "]" * 200_000
    chunk = itxt_chunk(STEPWISE_KEY, '{"kind": "stepwise-job", "spec": ' + deep + "}")
    bad = tmp_path / "deep.png"
    bad.write_bytes(with_text_chunks(plain.read_bytes(), [chunk]))
    assert read_png_parameters(bad).spec == {}


# --- 10: the engine's temp files ---------------------------------------------------------------
def test_engine_temp_files_are_cleaned_when_a_run_opens(tmp_path: Path) -> None:
    run_dir = _made_run(tmp_path)
    (run_dir / "checkpoints").mkdir()
    temps = [
        run_dir / "final_latent.bin.tmp",
        run_dir / "checkpoints" / "step_001.bin.tmp",
        run_dir / "checkpoints" / "metadata.json.tmp3",
        run_dir / "decoded.png.tmp12",
    ]
    for t in temps:
        t.write_bytes(b"half")
    keep = run_dir / "checkpoints" / "notes.tmpl"
    keep.write_bytes(b"not a temp")
    removed = remove_leftover_temps(run_dir)
    assert sorted(removed) == sorted(temps) and not any(t.exists() for t in temps)
    assert keep.exists()


# --- 11: resume validates the stored job like a new one ----------------------------------------
def _edit_spec(run_dir: Path, **changes: object) -> None:
    path = run_dir / RUN_FILE
    data = json.loads(path.read_text())
    data["spec"].update(changes)
    data["checksum"] = checksum(data)
    path.write_text(json.dumps(data))


def test_a_value_edited_into_run_json_is_refused_on_resume(tmp_path: Path) -> None:
    run_dir = _made_run(tmp_path)
    _edit_spec(run_dir, steps=100000)
    events = _events(_pipeline(), run_dir)
    last = events[-1]
    assert not any(isinstance(e, ev.StageStarted) for e in events)
    assert isinstance(last, ev.RunFailed) and last.kind is FailureKind.INPUT, last
    assert "steps" in last.message and "100000" in last.message


def test_a_sampler_edited_into_run_json_is_refused(tmp_path: Path, sd_stage: Path) -> None:
    run_dir = _made_run(tmp_path)
    _edit_spec(run_dir, sampler="no-such-sampler")
    events = list(Pipeline(app_paths(), sd_stage, cache_limit_mb=16).execute(run_dir, RunControl()))
    last = events[-1]
    assert not any(isinstance(e, ev.StageStarted) for e in events)
    assert isinstance(last, ev.RunFailed) and last.kind is FailureKind.INPUT, last
    assert "no-such-sampler" in last.message and "sampler" in last.message


def test_preflight_finite_message_is_a_template() -> None:
    with pytest.raises(InputError) as info:
        preflight.check_values(
            JobSpec(models=ModelFiles("a", "b", "c"), prompt="x", strength=math.nan)
        )
    assert "{" in info.value.message and "nan" not in info.value.message


# --- 9: the engine's limits, in preflight --------------------------------------------------------
def test_more_references_than_the_engine_takes_are_refused_first(tmp_path: Path) -> None:
    from app.imaging.io import save_png_atomic

    ref = tmp_path / "ref.png"
    save_png_atomic(ref, np.zeros((16, 16, 3), np.uint8))
    spec = JobSpec(models=_models(tmp_path), prompt="x", refs=(str(ref),) * 17)
    with pytest.raises(InputError) as info:
        _pipeline().create_run(spec, tmp_path / "run")
    text = info.value.user_message()
    assert "17 reference images" in text and "at most 16" in text and "Remove 1" in text
    assert not (tmp_path / "run").exists()
    _pipeline().create_run(dataclasses_replace(spec, refs=(str(ref),) * 16), tmp_path / "ok")


def dataclasses_replace(spec: JobSpec, **kw: object) -> JobSpec:
    import dataclasses

    return dataclasses.replace(spec, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("field,cfg", [("prompt", 1.0), ("negative_prompt", 3.0)])
def test_a_prompt_surely_too_long_is_refused_first(tmp_path: Path, field: str, cfg: float) -> None:
    long = "a red house by the sea " * 120  # 600 words: > 512 tokens whatever the tokenizer
    spec = JobSpec(models=_models(tmp_path), cfg_scale=cfg, **{"prompt": "x", field: long})
    with pytest.raises(InputError) as info:
        _pipeline().create_run(spec, tmp_path / "run")
    message = info.value.user_message()
    assert named(P.param(field))["name"] in message and "too long" in message
    assert not (tmp_path / "run").exists()
    # a negative prompt is not encoded at cfg 1: not refused then
    if field == "negative_prompt":
        _pipeline().create_run(dataclasses_replace(spec, cfg_scale=1.0), tmp_path / "ok")


def test_the_lower_bound_never_exceeds_a_short_prompt() -> None:
    assert preflight.prompt_tokens_at_least("a red house") < 20
    assert preflight.prompt_tokens_at_least("word " * 600) > preflight.MAX_PROMPT_TOKENS


@pytest.mark.parametrize(
    "row,given", [("diffusion", "vae"), ("vae", "llm"), ("llm", "diffusion"), ("diffusion", "llm")]
)
def test_a_model_of_the_wrong_kind_is_refused_by_its_header(
    tmp_path: Path, tiny_models, row: str, given: str
) -> None:
    files = {"diffusion": tiny_models.diffusion, "llm": tiny_models.llm, "vae": tiny_models.vae}
    files[row] = getattr(tiny_models, given)
    spec = JobSpec(models=ModelFiles(*(str(files[k]) for k in ("diffusion", "llm", "vae"))),
                   prompt="x")  # fmt: skip
    with pytest.raises(StepwiseError) as info:
        _pipeline().create_run(spec, tmp_path / "run")
    text = info.value.user_message()
    flag = {"diffusion": "--diffusion-model", "llm": "--llm", "vae": "--vae"}
    assert flag[row] in text and flag[given] in text and "not a" in text, text
    assert not (tmp_path / "run").exists()


def test_the_tiny_models_are_told_apart(tiny_models) -> None:
    from app.engine.model_kind import model_kind

    assert model_kind(tiny_models.diffusion) == "diffusion"
    assert model_kind(tiny_models.llm) == "llm"
    assert model_kind(tiny_models.vae) == "vae"


# --- 12: the smaller ones -------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_or_a_folder_as_the_image_is_said_as_such(tmp_path: Path) -> None:
    fifo = tmp_path / "photo.png"
    os.mkfifo(fifo)
    folder = tmp_path / "pictures"
    folder.mkdir()
    for path, words in ((fifo, "not a regular file"), (folder, "is a folder")):
        spec = JobSpec(models=_models(tmp_path), prompt="x", image=str(path))
        with pytest.raises(InputError) as info:
            _pipeline().create_run(spec, tmp_path / "run")
        assert words in info.value.user_message() and "does not exist" not in str(info.value)
