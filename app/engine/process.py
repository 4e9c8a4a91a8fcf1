"""One running sd-stage process: spawn, read its events, control it, stop it, get its result.

The child is untrusted and may misbehave: stdout lines are parsed with bounds (garbage is
counted and logged, and only fatal when excessive), stderr is drained on a thread into a log
file in the run folder so a chatty library can never block on a full pipe, and every wait has
a timeout. Stopping escalates: ask (cancel) → wait → terminate → wait → kill; the child runs
in its own process group (POSIX session) so the whole group is signalled, and on Windows in the
app's kill-on-close job object (app/core/platform.py has every OS difference).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from app.core import platform
from app.core.errors import OutputError
from app.core.safe_files import open_in_place
from app.engine import children
from app.engine.errors import EngineError, EngineStopped, ProtocolError, error_for_exit
from app.engine.events import (
    MAX_LINE_BYTES,
    Checkpoint,
    Done,
    ErrorEvent,
    Event,
    Hello,
    Stopped,
    parse_event,
)

log = logging.getLogger(__name__)

CANCEL_GRACE_S = 60.0  # a cancel takes effect after the current step, which may be slow
# How long the pipeline lets the engine obey a suspend/cancel before it climbs the ladder
# (terminate → kill). The engine reads commands in every stage, so a healthy one exits in well
# under a second; a kill mid-step is safe (atomic files), a suspend then loses that step only.
STOP_DEADLINE_S = 15.0
TERMINATE_GRACE_S = 5.0
KILL_WAIT_S = 5.0
CLOSE_GRACE_S = 2.0  # close() runs on error paths; killing mid-step is safe (atomic files)
READER_JOIN_S = 5.0
STDERR_TAIL_BYTES = 16 * 1024
MAX_GARBAGE_LINES = 100
COMMANDS = frozenset({"pause", "resume", "suspend", "cancel"})

_EOF = object()


class EngineHung(EngineError):
    """The engine sent nothing for longer than the caller was willing to wait."""

    default_message = "The engine stopped responding."
    default_fix = "It was stopped; try again, and report it with the engine log if it repeats."


class StageProcess:
    """A started sd-stage child; use as a context manager so it is always stopped."""

    def __init__(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        log_path: Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.argv = [os.fspath(a) for a in argv]
        self.log_path = Path(log_path)
        self.garbage_lines = 0
        self.hello: Hello | None = None
        self.error_event: ErrorEvent | None = None
        self.done_event: Done | None = None
        self.stopped_event: Stopped | None = None
        self.last_checkpoint: Checkpoint | None = None
        self.protocol_error: ProtocolError | None = None
        self.escalation: str | None = None  # "cancel", "terminate" or "kill" once stop() ran
        self._events: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._stdin_lock = threading.Lock()
        self.last_event_at = time.monotonic()  # when the engine last sent an event
        self._tail = bytearray()
        self._tail_lock = threading.Lock()

        children.refuse_if_stopped()  # the worker's owner stopped it: start nothing
        # Appended in place: never through a link, a FIFO or a second name (issue 29, defect 9).
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0)
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log_file = os.fdopen(open_in_place(self.log_path, flags), "ab")
        except OSError as exc:  # a read-only logs/, a file where the folder goes
            raise OutputError(
                "Cannot write the engine's log {path}: {reason}.",
                path=self.log_path,
                fix="Check that the run folder and its logs folder are writable folders.",
                values={"reason": exc.strerror or exc},
            ) from exc
        self._log_file.write(f"# argv: {json.dumps(self.argv)}\n".encode())
        self._log_file.flush()

        # Own process group (POSIX session; on Windows also no console window), see platform.
        kwargs = platform.child_popen_kwargs()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                **kwargs,
            )
        except OSError as exc:
            self._log_file.close()
            raise EngineError(
                "The engine could not be started: {reason}.",
                path=self.argv[0],
                fix="Build it with: python native/build.py",
                values={"reason": exc.strerror or str(exc)},
            ) from exc
        self.pid = self._proc.pid
        # Windows: in the app's kill-on-close job object, so it dies with the app, even a crash.
        self.contained = platform.contain_child(self._proc)
        self.started = platform.process_started(self.pid)  # with pid: the engine's identity
        self._stdout_thread = threading.Thread(
            target=self._read_stdout, name=f"sd-stage-{self.pid}-stdout", daemon=True
        )
        self._stderr_thread = threading.Thread(
            target=self._drain_stderr, name=f"sd-stage-{self.pid}-stderr", daemon=True
        )
        self._stdout_thread.start()
        self._stderr_thread.start()
        children.register(self._proc)  # its worker's owner can stop it (engine/children.py)

    # -- context manager: never leave a child behind ------------------------------------------

    def __enter__(self) -> StageProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self, grace_s: float = CLOSE_GRACE_S) -> None:
        """Stop the child if it still runs (ask, then force) and release the pipes."""
        if self._proc.poll() is None:
            self.stop(grace_s=grace_s)
        self._join_readers()
        for pipe in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    # -- reading ------------------------------------------------------------------------------

    def events(self, idle_timeout_s: float | None = None) -> Iterator[Event]:
        """Events in order until stdout closes.

        With `idle_timeout_s`, a silence that long stops the engine and raises EngineHung.
        Too many garbage lines stop the engine and raise ProtocolError.
        """
        while True:
            try:
                item = self._events.get(timeout=idle_timeout_s)
            except queue.Empty:
                self.stop(grace_s=0)
                raise EngineHung(
                    "The engine sent nothing for {seconds} s.",
                    path=self.log_path,
                    values={"seconds": f"{idle_timeout_s:g}"},
                ) from None
            if item is _EOF:
                self._events.put(_EOF)  # later calls end at once too
                if self.protocol_error is not None:
                    raise self.protocol_error
                return
            yield item  # type: ignore[misc]

    def _read_stdout(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            while True:
                line = stdout.readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
                if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                    # Oversized: skip the rest of it without ever holding it in memory.
                    while (rest := stdout.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                        pass
                    self._garbage(f"a line over {MAX_LINE_BYTES} bytes")
                    continue
                if not line.strip():
                    continue
                try:
                    event = parse_event(line)
                except ProtocolError as exc:
                    self._garbage(exc.message)
                    continue
                if event is None:
                    log.debug("sd-stage %s: ignoring unknown event %.200r", self.pid, line)
                    continue
                self._remember(event)
                self.last_event_at = time.monotonic()  # the stage watchdog's clock
                self._events.put(event)
        except (OSError, ValueError) as exc:  # pipe closed under us during close()
            log.debug("sd-stage %s: stdout reader ended: %s", self.pid, exc)
        finally:
            self._events.put(_EOF)

    def _garbage(self, what: str) -> None:
        self.garbage_lines += 1
        log.warning("sd-stage %s: ignoring bad event line (%s)", self.pid, what)
        if self.garbage_lines == MAX_GARBAGE_LINES + 1:
            self.protocol_error = ProtocolError(
                "The engine sent more than {count} lines that are not events; the last: {line}",
                path=self.log_path,
                values={"count": MAX_GARBAGE_LINES, "line": what},
            )
            # Something is badly wrong (wrong binary, debug output on stdout): stop it.
            threading.Thread(target=self.stop, kwargs={"grace_s": 0}, daemon=True).start()

    def _remember(self, event: Event) -> None:
        if isinstance(event, Hello):
            self.hello = event
        elif isinstance(event, ErrorEvent):
            self.error_event = event
        elif isinstance(event, Done):
            self.done_event = event
        elif isinstance(event, Stopped):
            self.stopped_event = event
        elif isinstance(event, Checkpoint):
            self.last_checkpoint = event

    def _drain_stderr(self) -> None:
        stderr = self._proc.stderr
        assert stderr is not None
        try:
            while chunk := stderr.read1(64 * 1024):  # type: ignore[attr-defined]
                self._log_file.write(chunk)
                self._log_file.flush()
                with self._tail_lock:
                    self._tail += chunk
                    if len(self._tail) > STDERR_TAIL_BYTES:
                        del self._tail[: len(self._tail) - STDERR_TAIL_BYTES]
        except (OSError, ValueError) as exc:
            log.debug("sd-stage %s: stderr reader ended: %s", self.pid, exc)
        finally:
            self._log_file.close()

    @property
    def stderr_tail(self) -> str:
        """The last STDERR_TAIL_BYTES of the engine's log, decoded leniently."""
        with self._tail_lock:
            return self._tail.decode("utf-8", "replace")

    # -- control ------------------------------------------------------------------------------

    def send(self, cmd: str) -> bool:
        """Send a control command; False if the engine is gone (its stdin is closed)."""
        if cmd not in COMMANDS:
            raise ValueError(f"unknown engine command {cmd!r}; expected one of {sorted(COMMANDS)}")
        stdin = self._proc.stdin
        if stdin is None or self._proc.poll() is not None:
            return False
        with self._stdin_lock:
            try:
                stdin.write(json.dumps({"cmd": cmd}).encode() + b"\n")
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                return False
        return True

    def pause(self) -> bool:
        return self.send("pause")

    def resume(self) -> bool:
        return self.send("resume")

    def suspend(self) -> bool:
        return self.send("suspend")

    def cancel(self) -> bool:
        return self.send("cancel")

    def stop(
        self, grace_s: float = CANCEL_GRACE_S, terminate_grace_s: float = TERMINATE_GRACE_S
    ) -> int:
        """Ask the engine to cancel, then terminate, then kill; returns the exit status."""
        code = self._proc.poll()
        if code is not None:
            return code
        self.escalation = "cancel"
        if grace_s > 0 and self.cancel():
            code = self._wait_quietly(grace_s)
            if code is not None:
                return code
        self.escalation = "terminate"
        self._signal_group(terminate=True)
        code = self._wait_quietly(terminate_grace_s)
        if code is not None:
            return code
        self.escalation = "kill"
        self._signal_group(terminate=False)
        code = self._wait_quietly(KILL_WAIT_S)
        if code is None:  # pragma: no cover - SIGKILL cannot be ignored
            raise EngineHung("The engine (pid {pid}) survived SIGKILL.", values={"pid": self.pid})
        return code

    def kill(self) -> int:
        """Kill the process group at once (tests simulate crashes with this)."""
        if self._proc.poll() is None:
            self.escalation = "kill"
            self._signal_group(terminate=False)
        return self.wait(KILL_WAIT_S)

    def _signal_group(self, *, terminate: bool) -> None:
        # poll() is None means the child is not reaped, so its pid (= pgid) is still ours.
        if self._proc.poll() is not None:
            return
        platform.signal_child(self._proc, terminate=terminate)

    def _wait_quietly(self, timeout_s: float) -> int | None:
        try:
            return self._proc.wait(timeout=max(timeout_s, 0.0))
        except subprocess.TimeoutExpired:
            return None

    # -- outcome ------------------------------------------------------------------------------

    @property
    def returncode(self) -> int | None:
        return self._proc.poll()

    def wait(self, timeout_s: float) -> int:
        """Wait for the exit status; raises TimeoutError after `timeout_s`."""
        try:
            return self._proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise TimeoutError(
                f"sd-stage (pid {self.pid}) still runs after {timeout_s:g} s"
            ) from None

    def result(self, timeout_s: float) -> Done:
        """The done event of a successful run; raises the exception for any other outcome.

        EngineError subclasses for failures, Suspended / Cancelled (EngineStopped) for stops on
        request, ProtocolError if the engine exited 0 without saying it was done.
        """
        code = self.wait(timeout_s)
        self._join_readers()
        if self.protocol_error is not None and code == 0:
            raise self.protocol_error
        message = self.error_event.message if self.error_event else None
        failure = error_for_exit(code, message, self.stderr_tail)
        if isinstance(failure, EngineStopped):
            failure.step = self._last_step()
        if failure is not None:
            raise failure
        if self.done_event is None:
            raise ProtocolError(
                "The engine exited successfully without reporting its outputs.",
                exit_code=code,
                stderr_tail=self.stderr_tail,
                path=self.log_path,
            )
        return self.done_event

    def _last_step(self) -> int | None:
        if self.stopped_event is not None:
            return self.stopped_event.step
        return self.last_checkpoint.step if self.last_checkpoint is not None else None

    def _join_readers(self) -> None:
        deadline = time.monotonic() + READER_JOIN_S
        for thread in (self._stdout_thread, self._stderr_thread):
            thread.join(timeout=max(deadline - time.monotonic(), 0.0))
            if thread.is_alive():
                # A grandchild may hold the pipe open; we do not wait for it forever.
                log.warning("sd-stage %s: %s did not finish", self.pid, thread.name)


# Defaults for every engine child, unless the user's environment sets them. OpenMP's barrier
# spins while it waits for the other threads, which thrashes when the machine is busy: a tiny-model
# llm-encode (2 threads) beside two busy loops took 9.1-10.6 s spinning and 4.8-5.1 s with
# PASSIVE; idle both took 2.3-2.6 s. (Under the suite's heavier load one spun for 300 s.)
ENGINE_ENV_DEFAULTS = {"OMP_WAIT_POLICY": "PASSIVE"}


def engine_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for the child: ours, ENGINE_ENV_DEFAULTS where ours does not say, plus
    `extra` (e.g. GGML_VK_VISIBLE_DEVICES)."""
    env = {**ENGINE_ENV_DEFAULTS, **os.environ}
    if extra:
        env.update(extra)
    return env


__all__ = [
    "CANCEL_GRACE_S",
    "ENGINE_ENV_DEFAULTS",
    "STOP_DEADLINE_S",
    "KILL_WAIT_S",
    "TERMINATE_GRACE_S",
    "EngineHung",
    "StageProcess",
    "engine_environment",
]
