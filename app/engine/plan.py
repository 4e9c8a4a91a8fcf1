"""What a stage will need, asked of the engine before it runs: `sd-stage … --plan`
(native/PROTOCOL.md, "Plan"). The contract between the engine's plan mode and the pipeline's
fitting (app/pipeline/fit.py); the engine side (plan_stage) is filled in by the engine work.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.engine.errors import ProtocolError

PLAN_FORMAT = 1


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
            str(data["stage"]), int(data["width"]), int(data["height"]), switches, devices
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ProtocolError(f"The engine's memory plan could not be read: {exc}") from exc


def plan_stage(
    engine: Path, argv: Sequence[str], env: Mapping[str, str] | None = None
) -> StagePlan:
    """Runs `engine argv… --plan` (bounded) and parses its plan. Filled in by the engine work."""
    raise NotImplementedError("sd-stage --plan is not wired yet")
