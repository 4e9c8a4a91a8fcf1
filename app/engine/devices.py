"""The compute devices an sd-stage build can use (`sd-stage --list-devices`)."""

from __future__ import annotations

import json
from pathlib import Path

from app.engine.errors import ProtocolError
from app.engine.events import MAX_LIST_ITEMS, Device
from app.engine.listing import REBUILD_FIX, ask_engine

MAX_NAME_CHARS = 256


def list_devices(engine: Path, env: dict[str, str] | None = None) -> list[Device]:
    """Runs the engine once; its answer is untrusted and bounded like any event."""
    stdout = ask_engine(engine, "--list-devices", "device", env)
    lines = stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        data = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, list):
        raise ProtocolError(
            f"{engine} gave no device list (its answer is not a JSON list).",
            path=engine,
            fix=REBUILD_FIX,
        )
    devices = []
    for item in data[:MAX_LIST_ITEMS]:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            name = item["name"][:MAX_NAME_CHARS]
            desc = item.get("description")
            devices.append(Device(name, desc[:MAX_NAME_CHARS] if isinstance(desc, str) else name))
    return devices
