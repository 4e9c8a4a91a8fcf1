"""Planned against measured memory of one stage: `sd-stage … --plan` against the buffer sizes
the real run logs (with -v, sd.cpp logs "<runner> compute buffer size: X MB" when it reserves a
graph and "<runner> params backend buffer size = X MB" when it allocates the weights).

Used by tests/engine/test_plan.py and bench/memory.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

COMPUTE_LINE = re.compile(r"(\S+) compute buffer size: ([0-9.]+) MB")
PARAMS_LINE = re.compile(r"(\S+) params backend buffer size = +([0-9.]+) MB")
MIB = 1024 * 1024
RUN_TIMEOUT_S = 600.0


@dataclass
class Measured:
    """What the real run logged: per runner, its first compute buffer and its weights."""

    compute: dict[str, int] = field(default_factory=dict)
    params: dict[str, int] = field(default_factory=dict)
    returncode: int | None = None
    seconds: float = 0.0
    log: str = ""


def measure(
    binary: Path,
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    *,
    stop_after: str | None = None,
    timeout_s: float = RUN_TIMEOUT_S,
) -> Measured:
    """Runs `binary argv… -v`; with stop_after (a runner name), kills it as soon as that
    runner's compute buffer line appears (it comes before the first step / decode runs)."""
    started = time.monotonic()
    result = Measured()
    lines: list[str] = []
    proc = subprocess.Popen(
        [str(binary), *argv, "-v"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        text=True,
        errors="replace",
    )
    assert proc.stderr is not None
    try:
        for line in proc.stderr:
            lines.append(line)
            if time.monotonic() - started > timeout_s:
                break
            found = COMPUTE_LINE.search(line)
            if found:
                result.compute.setdefault(found.group(1), round(float(found.group(2)) * MIB))
                if stop_after is not None and found.group(1) == stop_after:
                    break
            found = PARAMS_LINE.search(line)
            if found:
                result.params.setdefault(found.group(1), round(float(found.group(2)) * MIB))
    finally:
        if proc.poll() is None and (
            stop_after is not None or time.monotonic() - started > timeout_s
        ):
            proc.kill()
        result.returncode = proc.wait(timeout=60)
    result.seconds = time.monotonic() - started
    result.log = "".join(lines[-200:])
    return result


def plan(
    binary: Path, argv: Sequence[str], env: Mapping[str, str] | None = None
) -> tuple[dict, float]:
    """The raw plan object of `binary argv… --plan` and the seconds it took."""
    started = time.monotonic()
    done = subprocess.run(
        [str(binary), *argv, "--plan"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=dict(env) if env is not None else None,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace")[-3000:]
        raise AssertionError(f"--plan failed with {done.returncode}:\n{tail}")
    lines = done.stdout.decode().strip().splitlines()
    assert len(lines) == 1, f"--plan printed {len(lines)} lines on stdout: {lines[:3]}"
    return json.loads(lines[0]), seconds


def planned_first_compute(report: dict) -> dict[str, int]:
    """Per runner: the first graph's compute buffer (what the real run logs)."""
    return {r["name"]: int(r["compute_first_bytes"]) for r in report["runners"] if r["graphs"]}


def planned_weights(report: dict) -> dict[str, int]:
    return {r["name"]: int(r["weights_bytes"]) for r in report["runners"]}
