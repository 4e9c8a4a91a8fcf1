"""Stopping always works (issue 9): a suspend/cancel has a deadline, then terminate → kill.

The wedged engine is the fault-injecting child tests/engine/fake_stage.py (it ignores stdin);
the real engine's own exits 6/7 outside diffuse are checked at the end with the tiny models.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from app.engine.argv import CommonArgs
from app.engine.errors import Cancelled, Suspended
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.execute import engine_stage
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.run.folder import create_run

pytestmark = pytest.mark.timeout(120)  # without the deadline these hang: fail, do not wait

FAKE = Path(__file__).resolve().parents[1] / "engine" / "fake_stage.py"
DEADLINE_S = 0.5


@pytest.fixture()
def run(tmp_path: Path):
    return create_run(
        tmp_path, JobSpec(models=ModelFiles("d", "l", "v"), prompt="x"), tmp_path / "r"
    )


def _drive(run, scenario: str, request: str, monkeypatch) -> tuple[BaseException, float, int]:
    monkeypatch.setattr(
        engine_stage, "build_argv", lambda _engine, _args: [sys.executable, str(FAKE), scenario]
    )
    control = RunControl(stop_deadline_s=DEADLINE_S)
    gen = engine_stage.run_engine(
        run,
        control,
        Path(sys.executable),
        SimpleNamespace(stage="llm-encode", common=CommonArgs()),
        "llm-encode",
    )
    pid = 0
    started = 0.0
    with pytest.raises((Suspended, Cancelled)) as caught:
        for event in gen:
            if isinstance(event, ev.LogLine) and "engine fake" in event.text:
                pid = control.process_id or 0
                started = time.monotonic()
                getattr(control, request)()
    return caught.value, time.monotonic() - started, pid


@pytest.mark.parametrize("scenario", ["ignore_cancel", "hang"])
@pytest.mark.parametrize("request_", ["cancel", "suspend"])
def test_wedged_engine_is_stopped_after_the_deadline(
    run, scenario: str, request_: str, monkeypatch
) -> None:
    exc, seconds, pid = _drive(run, scenario, request_, monkeypatch)
    assert isinstance(exc, Cancelled if request_ == "cancel" else Suspended)
    assert seconds >= DEADLINE_S, seconds  # it waited for the deadline, then forced the stop
    assert pid
    try:
        assert psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        pass  # gone: reaped
    assert run.engine_pid is None


def test_obedient_engine_is_not_forced(run, monkeypatch) -> None:
    exc, seconds, _pid = _drive(run, "controls", "suspend", monkeypatch)
    assert isinstance(exc, Suspended) and exc.step is not None  # it stopped itself, at a step


def test_no_request_no_deadline(run, monkeypatch) -> None:
    monkeypatch.setattr(
        engine_stage, "build_argv", lambda _engine, _args: [sys.executable, str(FAKE), "ok"]
    )
    control = RunControl(stop_deadline_s=0.0)
    events = list(
        engine_stage.run_engine(
            run,
            control,
            Path(sys.executable),
            SimpleNamespace(stage="diffuse", common=CommonArgs()),
            "diffuse",
        )
    )
    assert any(isinstance(e, ev.CheckpointSaved) for e in events)
    assert not control.stop_overdue()


def test_stop_overdue_counts_from_the_first_request() -> None:
    control = RunControl(stop_deadline_s=0.2)
    assert not control.stop_overdue()
    control.suspend()
    assert not control.stop_overdue()
    time.sleep(0.25)
    control.cancel()  # a second request does not restart the clock
    assert control.stop_overdue()


ENCODE_SIZE = 768


def _big_picture(folder: Path, size: int) -> tuple[Path, Path]:
    import numpy as np
    from PIL import Image

    folder.mkdir(parents=True)
    rng = np.random.default_rng(5)
    Image.fromarray(rng.integers(0, 256, (size, size, 3), dtype=np.uint8)).save(folder / "p.png")
    mask = np.zeros((size, size), np.uint8)
    mask[size // 4 : size // 2, size // 4 : size // 2] = 255
    Image.fromarray(mask).save(folder / "m.png")
    return folder / "p.png", folder / "m.png"


@pytest.mark.parametrize("request_", ["cancel", "suspend"])
@pytest.mark.parametrize("stage", ["llm-encode", "vae-encode"])
def test_real_engine_stops_in_an_encode_stage(
    sd_stage: Path, tiny_models, tmp_path: Path, stage: str, request_: str
) -> None:
    """The engine obeys a stop outside diffuse (exit 6/7, no `stopped` event): the run ends
    RunCancelled/RunSuspended within seconds, the stage left pending, resumable."""
    from app.core.paths import app_paths
    from app.pipeline.runner import Pipeline
    from app.pipeline.selftest import selftest_images as _selftest_images

    image, mask = _selftest_images(tmp_path / "in")
    if stage == "vae-encode":
        # The selftest picture encodes in a blink on the tiny VAE: under load the request came
        # after the stage had finished. A 768² picture encodes for seconds, so the request
        # reaches the engine inside the stage.
        image, mask = _big_picture(tmp_path / "big", ENCODE_SIZE)
    pipeline = Pipeline(app_paths(), sd_stage)
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt=f"a house {stage} {request_}",  # a prompt of its own: no cached conditioning
        image=str(image),
        mask=str(mask),
        seed=7,
    )
    snap = pipeline.create_run(spec, tmp_path / "run")
    control = RunControl()
    asked = 0.0
    events = []
    for event in pipeline.execute(snap.dir, control):
        events.append(event)
        if isinstance(event, ev.StageStarted) and event.stage == stage:
            asked = time.monotonic()
            getattr(control, request_)()
    terminal = events[-1]
    assert isinstance(terminal, ev.RunCancelled if request_ == "cancel" else ev.RunSuspended)
    assert asked  # and the stage did not run to its end (below)
    after = pipeline.snapshot(snap.dir)
    assert after.stage(stage).state == "pending"
    assert after.failure is None
    assert not any(isinstance(e, ev.StageFinished) and e.stage == stage for e in events)
    if request_ == "suspend":  # the stage runs again on resume and the run finishes
        done = list(pipeline.execute(snap.dir, RunControl()))
        assert isinstance(done[-1], ev.RunFinished), done[-3:]
