"""CallRunner over the fake pipeline's event stream (tests/fakes/fake_pipeline.py, the real
RunControl) and hand-made generators: signals, control, exactly one terminal."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from app.jobs.call_runner import CallRunner, EventSource
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.failures import FailureKind
from app.pipeline.job.spec import JobSpec, ModelFiles
from tests.engine.pause_hook import engines_pause_at
from tests.fakes.fake_pipeline import FakePipeline
from tests.fakes.fake_steps import PREVIEW_PX

TERMINALS = ("run_finished", "run_failed", "run_cancelled", "run_suspended")


def _source(fake: FakePipeline, steps: int = 4) -> tuple[Path, EventSource]:
    """A new run of `steps` on the fake, and the event source that executes it."""
    spec = JobSpec(ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a door", steps=steps)
    run_dir = fake.create_run(spec).dir
    return run_dir, lambda control: fake.execute(run_dir, control)


def _record(runner: CallRunner) -> list[tuple]:
    seen: list[tuple] = []
    for name in (
        "stage_started",
        "stage_finished",
        "step_progress",
        "preview_saved",
        "preview_ready",
        "checkpoint_saved",
        "paused",
        "resumed",
        "log_line",
        *TERMINALS,
    ):
        getattr(runner, name).connect(lambda *args, _n=name: seen.append((_n, *args)))
    return seen


def _names(seen: list[tuple], name: str) -> list[tuple]:
    return [s for s in seen if s[0] == name]


def _terminals(seen: list[tuple]) -> list[tuple]:
    return [s for s in seen if s[0] in TERMINALS]


def test_full_run_emits_every_stage_step_and_one_terminal(qtbot, tmp_path: Path) -> None:
    run_dir, source = _source(FakePipeline(tmp_path, step_s=0.01), steps=5)
    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    with qtbot.waitSignal(runner.run_ended, timeout=10_000):
        runner.start()
    runner.wait(5000)
    qtbot.wait(20)
    assert [s[1] for s in _names(seen, "stage_started")] == [  # no image: no vae-encode
        "prepare",
        "llm-encode",
        "diffuse",
        "vae-decode",
        "composite",
    ]
    assert [s[1] for s in _names(seen, "step_progress")] == [1, 2, 3, 4, 5]
    assert [s[1] for s in _names(seen, "preview_saved")] == [1, 2, 3, 4, 5]
    assert all(not s[3].isNull() and s[3].width() <= 96 for s in _names(seen, "preview_saved"))
    ready = _names(seen, "preview_ready")
    assert ready and ready[-1][1] == 5 and ready[-1][2].width() == PREVIEW_PX
    assert [s[1] for s in _names(seen, "checkpoint_saved")] == [1, 2, 3, 4, 5]
    assert _terminals(seen) == [("run_finished", str(run_dir / "result.png"))]
    assert runner.terminal_kind == "finished"


def test_previews_coalesce_when_the_ui_lags(qtbot, tmp_path: Path) -> None:
    _, source = _source(FakePipeline(tmp_path, step_s=0.0), steps=6)
    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    runner.start()
    # The UI thread is busy: no events are processed until the worker is done.
    assert runner.wait(10_000)
    qtbot.wait(50)
    ready = _names(seen, "preview_ready")
    assert [s[1] for s in ready] == [6]  # only the newest full preview
    assert len(_names(seen, "preview_saved")) == 6  # but a thumbnail for every step
    assert len(_terminals(seen)) == 1


def test_pause_then_resume(qtbot, tmp_path: Path) -> None:
    _, source = _source(FakePipeline(tmp_path, step_s=0.02), steps=30)
    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    # The fake holds after step 3 by itself, as the test engine does (tests/engine/pause_hook):
    # a pause sent on a step's signal raced the fake's steps under load.
    with engines_pause_at(3), qtbot.waitSignal(runner.paused, timeout=10_000) as paused:
        runner.start()
    step_at_pause = paused.args[0]
    assert step_at_pause == 3
    time.sleep(0.2)
    QCoreApplication.processEvents()
    steps_while_paused = [s[1] for s in _names(seen, "step_progress") if s[1] > step_at_pause]
    assert steps_while_paused == []
    with qtbot.waitSignal(runner.run_finished, timeout=10_000):
        with qtbot.waitSignal(runner.resumed, timeout=10_000):
            runner.resume()
    runner.wait(5000)
    assert [s[1] for s in _names(seen, "step_progress")] == list(range(1, 31))
    assert len(_terminals(seen)) == 1


def test_suspend_then_resume_in_a_new_runner(qtbot, tmp_path: Path) -> None:
    fake = FakePipeline(tmp_path, step_s=0.02)
    _, source = _source(fake, steps=30)
    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    with engines_pause_at(4), qtbot.waitSignal(runner.paused, timeout=10_000):
        runner.start()  # held after step 4
    with qtbot.waitSignal(runner.run_suspended, timeout=10_000) as suspended:
        runner.suspend()
    runner.wait(5000)
    k = suspended.args[0]
    assert k == 4
    assert _terminals(seen) == [("run_suspended", k)]

    second = CallRunner(source, RunControl())  # the same run: starts after step k
    seen2 = _record(second)
    with qtbot.waitSignal(second.run_finished, timeout=10_000):
        second.start()
    second.wait(5000)
    assert [s[1] for s in _names(seen2, "step_progress")] == list(range(k + 1, 31))


def test_cancel_emits_cancelled_once(qtbot, tmp_path: Path) -> None:
    _, source = _source(FakePipeline(tmp_path, step_s=0.02), steps=50)
    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    with engines_pause_at(5), qtbot.waitSignal(runner.paused, timeout=10_000):
        runner.start()  # held after step 5
    with qtbot.waitSignal(runner.run_cancelled, timeout=10_000) as cancelled:
        runner.cancel()
    runner.wait(5000)
    qtbot.wait(20)
    k = cancelled.args[0]
    assert k == 5  # where it was held, not at the diffusion's end
    assert [s[1] for s in _names(seen, "step_progress")] == list(range(1, k + 1))
    assert [s[0] for s in _terminals(seen)] == ["run_cancelled"]


def test_failure_event_becomes_one_failed_signal(qtbot, tmp_path: Path) -> None:
    log = tmp_path / "diffuse.log"

    def source(control):
        yield ev.StageStarted("diffuse", tmp_path)
        yield ev.RunFailed(
            stage="diffuse", kind=FailureKind.OUT_OF_MEMORY, message="out of memory", log_path=log
        )

    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    with qtbot.waitSignal(runner.run_failed, timeout=10_000) as failed:
        runner.start()
    runner.wait(5000)
    failure = failed.args[0]
    assert (failure.stage, failure.kind, failure.detail, failure.log_path) == (
        "diffuse",
        FailureKind.OUT_OF_MEMORY,
        "out of memory",
        log,
    )
    assert len(_terminals(seen)) == 1


def test_exception_in_the_pipeline_becomes_one_failed_signal(qtbot, tmp_path: Path) -> None:
    _, source = _source(FakePipeline(tmp_path, raise_at_step=2))
    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    with qtbot.waitSignal(runner.run_failed, timeout=10_000) as failed:
        runner.start()
    runner.wait(5000)
    failure = failed.args[0]
    assert "fake crash in step 2" in failure.detail
    assert failure.kind == FailureKind.BUG
    assert failure.stage == "diffuse"
    assert len(_terminals(seen)) == 1


def test_a_source_without_terminal_event_still_ends_with_one(qtbot, tmp_path: Path) -> None:
    _, source = _source(FakePipeline(tmp_path, no_terminal=True))
    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    with qtbot.waitSignal(runner.run_ended, timeout=10_000):
        runner.start()
    runner.wait(5000)
    assert [s[0] for s in _terminals(seen)] == ["run_failed"]


def test_events_after_the_terminal_are_not_read(qtbot, tmp_path: Path) -> None:
    closed: list[bool] = []

    fake = FakePipeline(tmp_path)
    _, once = _source(fake, steps=1)

    def source(control):
        try:
            yield from once(control)
            yield from once(control)
        finally:
            closed.append(True)

    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    with qtbot.waitSignal(runner.run_ended, timeout=10_000):
        runner.start()
    runner.wait(5000)
    assert len(_terminals(seen)) == 1
    assert closed == [True]


def test_events_are_matched_by_class_not_by_name(qtbot, tmp_path: Path) -> None:
    """A look-alike class called RunFinished is not the pipeline's terminal event."""

    class RunFinished:  # same name, not app.pipeline.events.RunFinished
        result_path = tmp_path / "fake.png"

    def source(control):
        yield RunFinished()
        yield ev.StageStarted("prepare", tmp_path)
        yield ev.RunCancelled(0)

    runner = CallRunner(source, RunControl())
    seen = _record(runner)
    with qtbot.waitSignal(runner.run_ended, timeout=10_000):
        runner.start()
    runner.wait(5000)
    assert [s[0] for s in _terminals(seen)] == ["run_cancelled"]
    assert _names(seen, "stage_started") == [("stage_started", "prepare")]
