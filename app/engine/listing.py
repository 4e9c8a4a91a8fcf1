"""Asking the engine a one-shot question (`--list-devices`, `--list-samplers`): run it once,
bounded in time and output; its answer is then parsed as untrusted by the caller."""

from __future__ import annotations

import subprocess
from pathlib import Path

from app.engine.errors import ProtocolError

LISTING_TIMEOUT_S = 60.0  # a Vulkan driver may take seconds to enumerate
MAX_OUTPUT_BYTES = 64 * 1024
REBUILD_FIX = "Rebuild the engine with `python native/build.py`."


def ask_engine(engine: Path, flag: str, what: str, env: dict[str, str] | None = None) -> bytes:
    """The first MAX_OUTPUT_BYTES of `engine flag`'s stdout; ProtocolError (naming `what`, e.g.
    "devices") when it cannot run, times out or exits non-zero."""
    try:
        done = subprocess.run(
            [str(engine), flag],
            capture_output=True,
            timeout=LISTING_TIMEOUT_S,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProtocolError(
            f"{engine} could not list its {what} ({exc}).", path=engine, fix=REBUILD_FIX
        ) from exc
    if done.returncode != 0:
        raise ProtocolError(
            f"{engine} gave no {what} list (exit code {done.returncode}).",
            path=engine,
            fix=REBUILD_FIX,
        )
    return done.stdout[:MAX_OUTPUT_BYTES]
