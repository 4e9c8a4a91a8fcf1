"""Asking the engine a one-shot question (`--list-devices`, `--list-samplers`, `--plan`): run it
once, bounded in time and output; its answer is then parsed as untrusted by the caller."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from app.core import platform
from app.engine import children
from app.engine.errors import ProtocolError

LISTING_TIMEOUT_S = 60.0  # a Vulkan driver may take seconds to enumerate
MAX_OUTPUT_BYTES = 64 * 1024
REBUILD_FIX = "Rebuild the engine with `python native/build.py`."


def run_engine_once(
    engine: Path,
    args: Sequence[str],
    what: str,
    env: Mapping[str, str] | None = None,
    timeout_s: float = LISTING_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes]:
    """`engine args…` run to its end within timeout_s, stdin closed; stdout and stderr are cut
    to their first MAX_OUTPUT_BYTES. ProtocolError (naming `what`) when it cannot run or times
    out; the exit code is the caller's to judge."""
    children.refuse_if_stopped()
    try:
        proc = subprocess.Popen(
            [str(engine), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=dict(env) if env is not None else None,
            **platform.child_popen_kwargs(),
        )
    except OSError as exc:
        raise ProtocolError(
            "{path} could not give its {what} ({reason}).",
            path=engine,
            fix=REBUILD_FIX,
            values={"what": what, "reason": str(exc)},
        ) from exc
    with proc:
        children.register(proc)  # the worker's owner can stop it (engine/children.py)
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            platform.signal_child(proc, terminate=False)
            proc.communicate()
            raise ProtocolError(
                "{path} could not give its {what} ({reason}).",
                path=engine,
                fix=REBUILD_FIX,
                values={"what": what, "reason": str(exc)},
            ) from exc
    group = children.current_group()
    if group is not None and group.stopped:
        raise children.WorkerStopped()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    done.stdout = done.stdout[:MAX_OUTPUT_BYTES]
    done.stderr = done.stderr[-MAX_OUTPUT_BYTES:]
    return done


def ask_engine(engine: Path, flag: str, what: str, env: dict[str, str] | None = None) -> bytes:
    """The first MAX_OUTPUT_BYTES of `engine flag`'s stdout; ProtocolError (naming `what`, e.g.
    "devices") when it cannot run, times out or exits non-zero."""
    done = run_engine_once(engine, [flag], f"{what} list", env)
    if done.returncode != 0:
        raise ProtocolError(
            "{path} gave no {what} list (exit code {code}).",
            path=engine,
            fix=REBUILD_FIX,
            values={"what": what, "code": done.returncode},
        )
    return done.stdout
