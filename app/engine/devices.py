"""The compute devices an sd-stage build can use (`sd-stage --list-devices`), with the memory
facts the engine reports for each (native/PROTOCOL.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from app.engine.errors import ProtocolError
from app.engine.events import MAX_LIST_ITEMS, Device
from app.engine.listing import REBUILD_FIX, ask_engine

MAX_NAME_CHARS = 256
MAX_BYTES = 1 << 56  # 64 PiB: anything larger is not a memory size


@dataclass(frozen=True)
class DeviceFacts(Device):
    """A device with its memory facts; None where the engine cannot tell (an older engine, a
    backend that does not report it)."""

    total_bytes: int | None = None  # device memory (CPU: system RAM)
    free_bytes: int | None = None  # free when the engine asked (CPU: available RAM)
    max_alloc_bytes: int | None = None  # the largest single allocation the driver accepts
    fp16: bool | None = None  # the device computes in fp16


def _bytes(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_BYTES:
        return None
    return value


def list_devices(engine: Path, env: dict[str, str] | None = None) -> list[DeviceFacts]:
    """Runs the engine once; its answer is untrusted and bounded like any event."""
    stdout = ask_engine(engine, "--list-devices", "device", env)
    lines = stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        data = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, list):
        raise ProtocolError(
            "{path} gave no device list (its answer is not a JSON list).",
            path=engine,
            fix=REBUILD_FIX,
        )
    devices = []
    for item in data[:MAX_LIST_ITEMS]:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            name = item["name"][:MAX_NAME_CHARS]
            desc = item.get("description")
            fp16 = item.get("fp16")
            devices.append(
                DeviceFacts(
                    name,
                    desc[:MAX_NAME_CHARS] if isinstance(desc, str) else name,
                    total_bytes=_bytes(item.get("total_bytes")),
                    free_bytes=_bytes(item.get("free_bytes")),
                    max_alloc_bytes=_bytes(item.get("max_alloc_bytes")),
                    fp16=fp16 if isinstance(fp16, bool) else None,
                )
            )
    return devices
