"""The compute devices an sd-stage build can use (`sd-stage --list-devices`), with the memory
facts the engine reports for each (native/PROTOCOL.md)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from app.engine.errors import ProtocolError
from app.engine.events import MAX_LIST_ITEMS, Device
from app.engine.listing import REBUILD_FIX, ask_engine

MAX_NAME_CHARS = 256
MAX_BYTES = 1 << 56  # 64 PiB: anything larger is not a memory size
RECENT_S = 3.0  # a listing this fresh is asked again of nobody (a run's create and execute)


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


class RecentDevices:
    """`list_devices` answers reused for RECENT_S, per engine file (path, size, mtime) and
    environment: a run's create (device names) and execute (memory facts to fit the stages)
    start one engine process, not two (on Vulkan each is an instance created, ~0.15 s)."""

    def __init__(self, max_age_s: float = RECENT_S) -> None:
        self._max_age_s = max_age_s
        self._lock = threading.Lock()
        self._last: tuple[tuple, float, list[DeviceFacts]] | None = None

    def get(self, engine: Path, env: dict[str, str] | None = None) -> list[DeviceFacts]:
        try:
            st = engine.stat()
        except OSError:
            return list_devices(engine, env)  # its own error names the file
        key = (str(engine), st.st_size, st.st_mtime_ns, tuple(sorted((env or {}).items())))
        with self._lock:
            last = self._last
        if last is not None and last[0] == key and time.monotonic() - last[1] < self._max_age_s:
            return list(last[2])
        found = list_devices(engine, env)
        with self._lock:
            self._last = (key, time.monotonic(), found)
        return list(found)
