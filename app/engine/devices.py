"""The compute devices an sd-stage build can use (`sd-stage --list-devices`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from app.engine.errors import ProtocolError
from app.engine.events import MAX_LIST_ITEMS, Device

LIST_DEVICES_TIMEOUT_S = 60.0  # a Vulkan driver may take seconds to enumerate
MAX_OUTPUT_BYTES = 64 * 1024
MAX_NAME_CHARS = 256


def list_devices(engine: Path, env: dict[str, str] | None = None) -> list[Device]:
    """Runs the engine once; its answer is untrusted and bounded like any event."""
    try:
        done = subprocess.run(
            [str(engine), "--list-devices"],
            capture_output=True,
            timeout=LIST_DEVICES_TIMEOUT_S,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProtocolError(
            f"{engine} could not list its devices ({exc}).",
            path=engine,
            fix="Rebuild the engine with `python native/build.py`.",
        ) from exc
    lines = done.stdout[:MAX_OUTPUT_BYTES].decode("utf-8", "replace").strip().splitlines()
    try:
        data = json.loads(lines[-1]) if done.returncode == 0 and lines else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, list):
        raise ProtocolError(
            f"{engine} gave no device list (exit code {done.returncode}).",
            path=engine,
            fix="Rebuild the engine with `python native/build.py`.",
        )
    devices = []
    for item in data[:MAX_LIST_ITEMS]:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            name = item["name"][:MAX_NAME_CHARS]
            desc = item.get("description")
            devices.append(Device(name, desc[:MAX_NAME_CHARS] if isinstance(desc, str) else name))
    return devices
