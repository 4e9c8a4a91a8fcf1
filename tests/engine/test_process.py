"""StageProcess against a scripted fake child (fake_stage.py) that injects protocol faults."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.errors import (
    BadInputError,
    Cancelled,
    EngineCrashed,
    EngineOutOfMemory,
    ModelLoadError,
    ProtocolError,
    Suspended,
)
from app.engine.events import Checkpoint, Done, Hello, Paused, Progress, Resumed
from app.engine.process import (
    MAX_GARBAGE_LINES,
    STDERR_TAIL_BYTES,
    EngineHung,
    StageProcess,
)

FAKE = Path(__file__).with_name("fake_stage.py")
RESULT_TIMEOUT_S = 30


def start(scenario: str, tmp_path: Path) -> StageProcess:
    return StageProcess([sys.executable, str(FAKE), scenario], log_path=tmp_path / "stage.log")


def test_clean_run_yields_events_and_done(tmp_path: Path) -> None:
    with start("ok", tmp_path) as proc:
        events = list(proc.events(idle_timeout_s=RESULT_TIMEOUT_S))
        done = proc.result(RESULT_TIMEOUT_S)
    assert isinstance(events[0], Hello)
    assert [e.step for e in events if isinstance(e, Progress)] == [1, 2, 3]
    assert isinstance(events[-1], Done)
    assert done.outputs == {"latent": "final.bin"}
    assert proc.garbage_lines == 0
    assert proc.hello is not None and proc.hello.device == "CPU"
    assert '"ok"' in (tmp_path / "stage.log").read_text()  # the argv heads the log


def test_garbage_oversized_and_unknown_lines_are_skipped(tmp_path: Path) -> None:
    with start("garbage", tmp_path) as proc:
        events = list(proc.events(idle_timeout_s=RESULT_TIMEOUT_S))
        proc.result(RESULT_TIMEOUT_S)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["Hello", "Progress", "Checkpoint", "Progress", "Checkpoint", "Done"]
    # not json, a list, a wrong type, the 200 KiB line, a wrong version; "sparkles" is ignored
    assert proc.garbage_lines == 5


def test_excessive_garbage_stops_the_engine(tmp_path: Path) -> None:
    with start("flood", tmp_path) as proc:
        with pytest.raises(ProtocolError, match=str(MAX_GARBAGE_LINES)):
            list(proc.events(idle_timeout_s=RESULT_TIMEOUT_S))
        assert proc.wait(RESULT_TIMEOUT_S) != 0


@pytest.mark.skipif(sys.platform == "win32", reason="no signal number (-9) there")
def test_hang_ignoring_cancel_and_sigterm_escalates_to_kill(tmp_path: Path) -> None:
    with start("hang", tmp_path) as proc:
        events = proc.events(idle_timeout_s=RESULT_TIMEOUT_S)
        assert isinstance(next(events), Hello)
        assert isinstance(next(events), Progress)
        code = proc.stop(grace_s=0.5, terminate_grace_s=0.5)
        assert proc.escalation == "kill"
        assert code == -9
        with pytest.raises(EngineCrashed, match="SIGKILL"):
            proc.result(RESULT_TIMEOUT_S)


def test_ignored_cancel_escalates_to_terminate(tmp_path: Path) -> None:
    with start("ignore_cancel", tmp_path) as proc:
        next(proc.events(idle_timeout_s=RESULT_TIMEOUT_S))
        assert proc.stop(grace_s=0.5, terminate_grace_s=10) == -15
        assert proc.escalation == "terminate"


def test_pause_resume_then_cancel(tmp_path: Path) -> None:
    with start("controls", tmp_path) as proc:
        events = proc.events(idle_timeout_s=RESULT_TIMEOUT_S)
        assert isinstance(next(events), Hello)
        assert proc.pause()
        paused = next(e for e in events if isinstance(e, Paused))
        assert proc.resume()
        resumed = next(e for e in events if isinstance(e, Resumed))
        assert resumed.step == paused.step
        assert proc.cancel()
        rest = list(events)
        with pytest.raises(Cancelled) as info:
            proc.result(RESULT_TIMEOUT_S)
    assert info.value.step == rest[-1].step
    assert proc.escalation is None  # it stopped on its own


def test_suspend_reports_the_checkpointed_step(tmp_path: Path) -> None:
    with start("controls", tmp_path) as proc:
        events = proc.events(idle_timeout_s=RESULT_TIMEOUT_S)
        next(e for e in events if isinstance(e, Progress))
        assert proc.suspend()
        rest = list(events)
        with pytest.raises(Suspended) as info:
            proc.result(RESULT_TIMEOUT_S)
    checkpoint = [e for e in rest if isinstance(e, Checkpoint)][-1]
    assert info.value.step == checkpoint.step
    assert not proc.send("resume")  # the engine is gone: commands report failure, no raise


def test_stop_of_a_cooperative_engine_needs_only_cancel(tmp_path: Path) -> None:
    with start("controls", tmp_path) as proc:
        next(proc.events(idle_timeout_s=RESULT_TIMEOUT_S))
        assert proc.stop(grace_s=10) == 7
        assert proc.escalation == "cancel"


@pytest.mark.skipif(sys.platform == "win32", reason="a crash is an NTSTATUS code there")
def test_crash_with_signal(tmp_path: Path) -> None:
    with start("crash", tmp_path) as proc:
        list(proc.events(idle_timeout_s=RESULT_TIMEOUT_S))
        with pytest.raises(EngineCrashed, match="SIGSEGV") as info:
            proc.result(RESULT_TIMEOUT_S)
    assert "something went badly wrong" in info.value.stderr_tail
    assert "something went badly wrong" in (tmp_path / "stage.log").read_text()


def test_out_of_memory_abort_gets_a_plain_message(tmp_path: Path) -> None:
    with start("oom", tmp_path) as proc:
        list(proc.events(idle_timeout_s=RESULT_TIMEOUT_S))
        with pytest.raises(EngineOutOfMemory):
            proc.result(RESULT_TIMEOUT_S)


def test_error_event_message_and_exit_code(tmp_path: Path) -> None:
    with start("model_error", tmp_path) as proc:
        list(proc.events(idle_timeout_s=RESULT_TIMEOUT_S))
        with pytest.raises(ModelLoadError, match="not a diffusion model") as info:
            proc.result(RESULT_TIMEOUT_S)
    assert info.value.exit_code == 3


def test_unknown_exit_status(tmp_path: Path) -> None:
    with start("exit_status", tmp_path) as proc:
        with pytest.raises(EngineCrashed, match="42"):
            proc.result(RESULT_TIMEOUT_S)


def test_exit_zero_without_done_is_a_protocol_error(tmp_path: Path) -> None:
    with start("no_done", tmp_path) as proc:
        with pytest.raises(ProtocolError):
            proc.result(RESULT_TIMEOUT_S)


def test_stderr_flood_never_blocks_and_tail_is_bounded(tmp_path: Path) -> None:
    with start("stderr_flood", tmp_path) as proc:
        proc.result(RESULT_TIMEOUT_S)
    assert len(proc.stderr_tail.encode()) <= STDERR_TAIL_BYTES
    assert proc.stderr_tail.endswith("LAST LINE\n")
    assert (tmp_path / "stage.log").stat().st_size > 4_000_000


def test_silence_past_the_idle_timeout_stops_the_engine(tmp_path: Path) -> None:
    with start("silent", tmp_path) as proc:
        with pytest.raises(EngineHung):
            list(proc.events(idle_timeout_s=0.5))
        assert proc.returncode is not None


def test_result_and_wait_time_out_instead_of_hanging(tmp_path: Path) -> None:
    with start("silent", tmp_path) as proc:
        with pytest.raises(TimeoutError):
            proc.result(0.2)
    assert proc.returncode is not None  # the context manager stopped it


def test_missing_binary(tmp_path: Path) -> None:
    from app.engine.errors import EngineError

    with pytest.raises(EngineError, match="could not be started"):
        StageProcess([str(tmp_path / "nope")], log_path=tmp_path / "x.log")


def test_unknown_command_is_refused(tmp_path: Path) -> None:
    with start("ok", tmp_path) as proc:
        with pytest.raises(ValueError):
            proc.send("explode")


def test_bad_input_exit_code_maps(tmp_path: Path) -> None:
    # exit 5 through a real child: the class comes from the exit code alone.
    script = tmp_path / "five.py"
    script.write_text("import sys; sys.exit(5)\n")
    with StageProcess([sys.executable, str(script)], log_path=tmp_path / "l.log") as proc:
        with pytest.raises(BadInputError):
            proc.result(RESULT_TIMEOUT_S)


def test_engine_children_sleep_in_openmp_waits_unless_the_user_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.engine.process import engine_environment

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    env = engine_environment({"GGML_VK_VISIBLE_DEVICES": "none"})
    assert env["OMP_WAIT_POLICY"] == "PASSIVE" and env["GGML_VK_VISIBLE_DEVICES"] == "none"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # the user's own choice wins
    assert engine_environment()["OMP_WAIT_POLICY"] == "ACTIVE"
