"""What a stage will need, asked of the engine before it runs: `sd-stage … --plan`
(native/PROTOCOL.md, "Plan"). The contract between the engine's plan mode and the pipeline's
fitting (app/pipeline/execute/fit.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.engine.errors import EngineError, ProtocolError, error_for_exit
from app.engine.listing import run_engine_once

PLAN_FORMAT = 1
PLAN_TIMEOUT_S = 120.0  # headers and a graph build: seconds, but a Vulkan driver may start slowly
PLAN_FLAG = "--plan"


@dataclass(frozen=True)
class DevicePlan:
    """One device's share of a stage: bytes of weights, of the compute buffer, the largest
    single allocation ggml will ask for, the largest single tensor, and their total."""

    device: str  # "cpu", "vulkan0", ...
    weights_bytes: int
    compute_bytes: int
    largest_alloc_bytes: int
    largest_tensor_bytes: int
    total_bytes: int


@dataclass(frozen=True)
class StagePlan:
    stage: str
    width: int
    height: int
    switches: Mapping[str, object] = field(default_factory=dict)  # diffusion_fa, vae_tiling, ...
    devices: tuple[DevicePlan, ...] = ()
    ref_latents: int = 0  # diffuse: the reference latents it was planned with
    images: int = 0  # vae-encode: the pictures it encodes (init and references)

    def on(self, device: str) -> DevicePlan | None:
        return next((d for d in self.devices if d.device == device), None)


_DEVICE_FIELDS = (
    "weights_bytes",
    "compute_bytes",
    "largest_alloc_bytes",
    "largest_tensor_bytes",
    "total_bytes",
)


def parse_plan(text: str | bytes) -> StagePlan:
    """The plan from the engine's stdout; ProtocolError when it is not one."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("plan") != PLAN_FORMAT:
            raise ValueError(f"not a plan of format {PLAN_FORMAT}")
        devices = tuple(
            DevicePlan(str(d["device"]), *(int(d[name]) for name in _DEVICE_FIELDS))
            for d in data["devices"]
        )
        switches = data.get("switches", {})
        if not isinstance(switches, dict):
            raise ValueError("switches is not an object")
        return StagePlan(
            str(data["stage"]),
            int(data["width"]),
            int(data["height"]),
            switches,
            devices,
            int(data.get("ref_latents", 0)),
            int(data.get("images", 0)),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ProtocolError(
            "The engine's memory plan could not be read: {reason}", values={"reason": str(exc)}
        ) from exc


def plan_stage(
    engine: Path, argv: Sequence[str], env: Mapping[str, str] | None = None
) -> StagePlan:
    """Runs `engine argv… --plan` (bounded in time and output) and parses its plan. `argv` is
    the stage's real command line (app/engine/argv.py); the engine loads no weights. A refusal
    raises the same typed error the real run would (UsageError, ModelLoadError, ...)."""
    args = list(argv)
    if PLAN_FLAG not in args:
        args.append(PLAN_FLAG)
    done = run_engine_once(engine, args, "memory plan", env, PLAN_TIMEOUT_S)
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        error = error_for_exit(done.returncode, _engine_message(stderr), stderr[-4000:])
        if isinstance(error, EngineError):
            raise error
        raise ProtocolError(
            "{path} stopped while planning (exit code {code}).",
            path=engine,
            values={"code": done.returncode},
        )
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    return parse_plan(lines[-1] if lines else "")


def _engine_message(stderr: str) -> str | None:
    """The engine's own one-line error (`sd-stage: error: …` or, for a refused command line,
    `sd-stage: …`; its last), if it wrote one."""
    found = [
        line.removeprefix("sd-stage: ").removeprefix("error: ")
        for line in stderr.splitlines()
        if line.startswith("sd-stage: ")
    ]
    return found[-1].strip() if found else None
