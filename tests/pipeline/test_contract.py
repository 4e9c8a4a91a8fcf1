"""The PipelineAPI contract: the same scenarios on the real Pipeline (real engine, tiny models)
and on the fake (tests/fakes/fake_pipeline.py), with the same observable results."""

from __future__ import annotations

import inspect
import threading
import time
import typing
from pathlib import Path

import numpy as np
import pytest

from app.core.errors import InputError
from app.core.paths import app_paths
from app.imaging.io import encode_png
from app.pipeline import events as ev
from app.pipeline.api import PipelineAPI
from app.pipeline.control import RunControl
from app.pipeline.failures import FailureKind
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.plans import unfit_of
from app.pipeline.runner import Pipeline
from tests.engine.pause_hook import suspend_at
from tests.fakes.fake_pipeline import FakePipeline

PROTOCOL_METHODS = (
    "engine_binary",
    "devices",
    "catalog",
    "plan",
    "preview_decoder",
    "create_run",
    "snapshot",
    "update_run",
    "branch",
    "unfinished_runs",
    "list_runs",
    "run_inputs",
    "discard_run",
    "execute",
    "decode_step",
    "accept_step",
    "start_over",
)


def _protocol_methods() -> set[str]:
    return {n for n, v in vars(PipelineAPI).items() if callable(v) and not n.startswith("_")}


def test_the_list_is_every_protocol_method() -> None:
    assert set(PROTOCOL_METHODS) == _protocol_methods()


@pytest.fixture(params=[pytest.param("real", marks=pytest.mark.engine), "fake"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> PipelineAPI:
    if request.param == "real":
        return Pipeline(app_paths(), request.getfixturevalue("sd_stage"), cache_limit_mb=16)
    return FakePipeline(tmp_path / "fake-runs")


@pytest.fixture()
def models(request: pytest.FixtureRequest, api: PipelineAPI, tmp_path: Path) -> ModelFiles:
    if isinstance(api, Pipeline):
        m = request.getfixturevalue("tiny_models")
        return ModelFiles(str(m.diffusion), str(m.llm), str(m.vae))
    return ModelFiles(*(str(tmp_path / n) for n in ("d.gguf", "l.gguf", "v.safetensors")))


def _spec(models: ModelFiles, steps: int = 3, **changes: object) -> JobSpec:
    values: dict = {
        "prompt": "a contract",
        "width": 64,
        "height": 64,
        "steps": steps,
        "preview": "none",
        **changes,
    }
    return JobSpec(models=models, **values)


def _run(
    api: PipelineAPI, run_dir: Path, control: RunControl | None = None, only: str | None = None
) -> list:
    events = list(api.execute(run_dir, control or RunControl(), only=only))
    terminals = [e for e in events if isinstance(e, ev.TERMINAL_EVENTS)]
    assert len(terminals) == 1 and events[-1] is terminals[0], events[-3:]
    return events


def _steps(events: list) -> list[int]:
    return [e.step for e in events if isinstance(e, ev.StepProgressed)]


def test_both_implement_the_protocol_with_its_signatures(tmp_path: Path) -> None:
    real = Pipeline(app_paths(), cache_limit_mb=16)
    fake = FakePipeline(tmp_path)
    assert isinstance(real, PipelineAPI) and isinstance(fake, PipelineAPI)
    for name in PROTOCOL_METHODS:
        want = getattr(PipelineAPI, name)
        for impl in (Pipeline, FakePipeline):
            got = getattr(impl, name)
            w, g = inspect.signature(want), inspect.signature(got)
            assert [(p.name, p.kind, p.default) for p in w.parameters.values()] == [
                (p.name, p.kind, p.default) for p in g.parameters.values()
            ], (impl, name)
            assert typing.get_type_hints(want) == typing.get_type_hints(got), (impl, name)


def test_run_all_then_everything_is_up_to_date(api: PipelineAPI, models: ModelFiles) -> None:
    run = api.create_run(_spec(models))
    assert not run.finished and not run.resumable
    assert isinstance(_run(api, run.dir)[-1], ev.RunFinished)
    snap = api.snapshot(run.dir)
    assert snap.finished and snap.result is not None and snap.result.is_file()
    assert {s.state for s in snap.stages} <= {"done", "cached", "skipped"}
    assert snap.stage("vae-encode").state == "skipped"
    assert snap.last_completed_step == 3 and snap.failure is None
    again = _run(api, run.dir)
    assert isinstance(again[-1], ev.RunFinished)
    assert all(e.cached for e in again if isinstance(e, ev.StageFinished))
    assert api.unfinished_runs() == []


def test_only_the_next_stage(api: PipelineAPI, models: ModelFiles) -> None:
    run = api.create_run(_spec(models))
    assert isinstance(_run(api, run.dir, only="prepare")[-1], ev.RunFinished)
    snap = api.snapshot(run.dir)
    assert snap.stage("prepare").state == "done" and snap.stage("diffuse").state == "pending"
    failed = _run(api, run.dir, only="diffuse")[-1]
    assert isinstance(failed, ev.RunFailed) and failed.kind is FailureKind.ORDER
    assert failed.stage == "llm-encode"
    failure = api.snapshot(run.dir).failure
    assert failure is not None and failure.kind is FailureKind.ORDER
    assert isinstance(_run(api, run.dir, only="llm-encode")[-1], ev.RunFinished)
    assert api.snapshot(run.dir).failure is None


def test_cancel_before_the_first_stage(api: PipelineAPI, models: ModelFiles) -> None:
    run = api.create_run(_spec(models))
    control = RunControl()
    control.cancel()
    events = _run(api, run.dir, control)
    assert events == [ev.RunCancelled(0)]
    assert not api.snapshot(run.dir).finished


def test_suspend_then_resume(api: PipelineAPI, models: ModelFiles) -> None:
    run = api.create_run(_spec(models, steps=6))
    events = suspend_at(api, run.dir, 2)  # the engine (or the fake) holds after step 2
    suspended = events[-1]
    assert isinstance(suspended, ev.RunSuspended), events[-3:]
    assert 1 <= suspended.step < 6
    snap = api.snapshot(run.dir)
    assert not snap.finished and snap.resumable and suspended.step in snap.checkpoints
    assert [s.dir for s in api.unfinished_runs()] == [run.dir]
    resumed = _run(api, run.dir)
    assert isinstance(resumed[-1], ev.RunFinished)
    assert _steps(resumed) == list(range(suspended.step + 1, 7))
    assert api.unfinished_runs() == []


def test_accept_a_step_finishes_from_it_and_start_over_keeps_the_run(
    api: PipelineAPI, models: ModelFiles
) -> None:
    snap = api.create_run(_spec(models, steps=3))
    _run(api, snap.dir)
    kept = api.snapshot(snap.dir).checkpoints
    assert kept, "a finished run keeps checkpoints to accept"
    missing = list(api.accept_step(snap.dir, 99, RunControl()))
    assert isinstance(missing[-1], ev.RunFailed) and missing[-1].kind == FailureKind.INPUT
    assert api.snapshot(snap.dir).accepted_step is None
    k = min(kept)
    events = list(api.accept_step(snap.dir, k, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-3:]
    assert [e.stage for e in events if isinstance(e, ev.StageStarted)] == [
        "vae-decode",
        "composite",
    ]
    done = api.snapshot(snap.dir)
    assert done.accepted_step == k and done.finished
    assert done.result is not None and done.result.is_file()
    api.start_over(snap.dir)
    assert api.snapshot(snap.dir).accepted_step == k  # nothing is deleted until a run


def test_branch_shares_steps_only_when_diffusion_is_unchanged(
    api: PipelineAPI, models: ModelFiles
) -> None:
    run = api.create_run(_spec(models, steps=4))
    _run(api, run.dir)
    same = api.branch(run.dir, 2, {"preview": "proj"})
    assert same.dir != run.dir and same.spec.preview == "proj"
    assert _steps(_run(api, same.dir)) == [3, 4]
    other = api.branch(run.dir, 2, {"seed": 5})
    assert _steps(_run(api, other.dir)) == [1, 2, 3, 4]
    assert api.snapshot(other.dir).finished


def test_the_plan_fits_every_stage_the_job_runs(
    api: PipelineAPI, models: ModelFiles, tmp_path: Path
) -> None:
    """What the Devices pane, the fit guard and `run` ask of the pipeline (PipelineAPI.plan)."""
    devices = api.devices()
    plan = api.plan(_spec(models), (64, 48), devices, search=False)
    assert (plan.width, plan.height) == (64, 48)
    assert list(plan.fits) == ["llm-encode", "diffuse", "vae-decode"]
    assert unfit_of(plan) is None and plan.largest is None
    image = tmp_path / "photo.png"
    image.write_bytes(encode_png(np.full((64, 64, 3), 90, np.uint8)))
    with_photo = api.plan(_spec(models, image=str(image)), (64, 64), devices, search=False)
    assert list(with_photo.fits)[0] == "vae-encode"
    assert api.plan(_spec(models), None, devices, search=False).width == 64  # the job's size


@pytest.mark.parametrize("choice", ["off", "on"])
def test_a_background_decoder_only_when_the_job_wants_one(
    api: PipelineAPI, models: ModelFiles, choice: str
) -> None:
    run = api.create_run(_spec(models, devices=DeviceChoice(decoded_previews=choice)))
    decoder = api.preview_decoder(run.dir, lambda _preview: None)
    if choice == "off":
        assert decoder is None
        return
    assert decoder is not None and not decoder.running
    decoder.start()
    assert decoder.running
    decoder.stop()
    assert not decoder.running


@pytest.mark.parametrize("call", ["create_run", "update_run", "branch"])
def test_a_sampler_the_engine_lacks_is_refused_by_every_call_that_sets_the_job(
    api: PipelineAPI, models: ModelFiles, call: str
) -> None:
    run = api.create_run(_spec(models, steps=2))
    with pytest.raises(InputError) as info:
        if call == "create_run":
            api.create_run(_spec(models, sampler="no-such-sampler"))
        elif call == "update_run":
            api.update_run(run.dir, {"sampler": "no-such-sampler"})
        else:
            api.branch(run.dir, 0, {"sampler": "no-such-sampler"})
    assert info.value.values["value"] == "'no-such-sampler'"
    assert api.snapshot(run.dir).spec.sampler == "euler"  # the run's job is left as it was


def test_list_runs_newest_first_their_inputs_and_discard(
    api: PipelineAPI, models: ModelFiles, tmp_path: Path
) -> None:
    image, mask = tmp_path / "photo.png", tmp_path / "photo-mask.png"
    image.write_bytes(encode_png(np.full((64, 64, 3), 90, np.uint8)))
    mask.write_bytes(encode_png(np.full((64, 64), 255, np.uint8)))
    older = api.create_run(_spec(models, image=str(image), mask=str(mask)))
    time.sleep(1.05)  # run ids and dates have a resolution of one second
    newer = api.create_run(_spec(models))
    assert [s.dir for s in api.list_runs()] == [newer.dir, older.dir]
    got_image, got_mask = api.run_inputs(older.dir)
    assert got_image is not None and got_image.read_bytes() == image.read_bytes()
    assert got_mask is not None and got_mask.read_bytes() == mask.read_bytes()
    assert api.run_inputs(newer.dir) == (None, None)
    trashed: list[Path] = []
    api.discard_run(older.dir, trash=lambda folder: trashed.append(folder) or False)
    assert trashed == [older.dir] and not older.dir.exists()  # the trash said no: deleted
    moved = tmp_path / "trash"

    def to_trash(folder: Path) -> bool:
        folder.rename(moved)
        return True

    api.discard_run(newer.dir, trash=to_trash)
    assert moved.is_dir() and not newer.dir.exists()
    assert api.list_runs() == []


def test_the_photo_name_is_recorded_as_a_name_never_a_path(
    api: PipelineAPI, models: ModelFiles, tmp_path: Path
) -> None:
    """The GUI's job names a copy of the document (image-….png); the run is titled by the
    user's photo, recorded as its file name alone, through create_run and update_run."""
    copy = tmp_path / "image-0123abcd.png"
    copy.write_bytes(encode_png(np.full((64, 64, 3), 90, np.uint8)))
    user_path = tmp_path / "holiday photos" / "海边 2026.jpg"
    run = api.create_run(_spec(models, image=str(copy)), photo_name=str(user_path))
    assert run.photo_name == "海边 2026.jpg"
    assert api.snapshot(run.dir).photo_name == "海边 2026.jpg"
    assert [s.photo_name for s in api.list_runs()] == ["海边 2026.jpg"]
    other = tmp_path / "image-4567cdef.png"
    other.write_bytes(encode_png(np.full((64, 64, 3), 30, np.uint8)))
    updated = api.update_run(run.dir, {"image": str(other)}, photo_name="another.png")
    assert updated.photo_name == "another.png"
    assert api.create_run(_spec(models, image=str(copy))).photo_name is None  # none given
    assert api.create_run(_spec(models), photo_name="x.png").photo_name is None  # no image
    if isinstance(api, Pipeline):
        text = (run.dir / "run.json").read_text(encoding="utf-8")
        assert str(user_path.parent) not in text and "holiday photos" not in text


# --- the fake's protocol faults (what the UI tests need it for) ---


def test_fake_failing_stage(tmp_path: Path) -> None:
    fake = FakePipeline(tmp_path, fail_stage="diffuse", fail_kind=FailureKind.OUT_OF_MEMORY)
    run = fake.create_run(_spec(ModelFiles("d", "l", "v")))
    failed = _run(fake, run.dir)[-1]
    assert failed == ev.RunFailed(
        "diffuse", FailureKind.OUT_OF_MEMORY, "fake failure in diffuse", None
    )
    failure = fake.snapshot(run.dir).failure
    assert failure is not None and failure.kind is FailureKind.OUT_OF_MEMORY


def test_fake_stage_that_never_ends_until_cancelled(tmp_path: Path) -> None:
    fake = FakePipeline(tmp_path, hang_stage="llm-encode")
    run = fake.create_run(_spec(ModelFiles("d", "l", "v")))
    control = RunControl()
    threading.Timer(0.1, control.cancel).start()
    assert isinstance(_run(fake, run.dir, control)[-1], ev.RunCancelled)


def test_fake_events_out_of_order(tmp_path: Path) -> None:
    fake = FakePipeline(tmp_path, out_of_order=True)
    run = fake.create_run(_spec(ModelFiles("d", "l", "v")))
    events = _run(fake, run.dir)
    assert isinstance(events[0], ev.StepProgressed) and isinstance(events[1], ev.StageFinished)
    assert isinstance(events[-1], ev.RunFinished)
