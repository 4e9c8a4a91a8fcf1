"""sd-stage's JSON-lines events (native/PROTOCOL.md, "Events"), parsed as untrusted input.

Every line on the engine's stdout is one JSON object with ``"v": 1`` and ``"type"``.
`parse_event` turns a line into one of the frozen dataclasses below, returns None for a type
this client does not know (newer engines may add types), and raises ProtocolError for
anything else: not JSON, too long, a wrong version, a missing field or a field of the wrong
type. Strings and lists are bounded. Paths are returned as given; the caller checks them with
`path_inside` before opening anything.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.engine.errors import ProtocolError

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024
MAX_STRING_CHARS = 4096
MAX_LIST_ITEMS = 64
MAX_STEPS = 100_000


@dataclass(frozen=True)
class Device:
    """One compute device the engine can see."""

    name: str
    description: str


@dataclass(frozen=True)
class Hello:
    """First event: engine version, the sd.cpp pin, the stage and its devices."""

    version: str
    pin: str
    stage: str
    devices: tuple[Device, ...]
    device: str


@dataclass(frozen=True)
class Load:
    """A model finished loading."""

    model: str
    path: str
    device: str
    seconds: float


@dataclass(frozen=True)
class Progress:
    """A sampling step finished."""

    step: int
    steps: int
    seconds: float
    seconds_per_step: float


@dataclass(frozen=True)
class Checkpoint:
    """x_t after `step` is on disk at `path`; `seconds` (optional) is the write time."""

    step: int
    path: str
    seconds: float | None = None


@dataclass(frozen=True)
class Preview:
    """A preview image of `step` is on disk at `path`."""

    step: int
    path: str


@dataclass(frozen=True)
class Paused:
    """Holding after `step` with the model loaded."""

    step: int


@dataclass(frozen=True)
class Resumed:
    """Continuing after a pause."""

    step: int


@dataclass(frozen=True)
class Stopped:
    """Stopped on request ("suspended" or "cancelled") after `step`."""

    reason: str
    step: int


@dataclass(frozen=True)
class Done:
    """The stage finished; `outputs` maps output names to paths."""

    seconds: float
    outputs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ErrorEvent:
    """The engine is about to exit with `code`; `message` names the file or flag and the fix."""

    code: int
    message: str


Event = (
    Hello | Load | Progress | Checkpoint | Preview | Paused | Resumed | Stopped | Done | ErrorEvent
)

STOP_REASONS = frozenset({"suspended", "cancelled"})


def parse_event(line: bytes | str) -> Event | None:
    """One stdout line → an event; None for unknown types; ProtocolError for anything malformed."""
    raw = line.encode("utf-8", "replace") if isinstance(line, str) else line
    if len(raw) > MAX_LINE_BYTES:
        raise ProtocolError(
            "The engine sent a line of {size} bytes (limit {limit}).",
            values={"size": len(raw), "limit": MAX_LINE_BYTES},
        )
    try:
        obj = json.loads(raw, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(
            "The engine sent a line that is not JSON: {line}", values={"line": _preview(raw)}
        ) from exc
    if not isinstance(obj, dict):
        raise ProtocolError(
            "The engine sent JSON that is not an object: {line}", values={"line": _preview(raw)}
        )
    reader = _Fields(obj)
    version = reader.integer("v")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            "The engine speaks event protocol version {version}; this Stepwise needs {needed}.",
            values={"version": version, "needed": PROTOCOL_VERSION},
        )
    kind = reader.string("type")
    parser = _PARSERS.get(kind)
    return parser(reader) if parser else None


def path_inside(path: str | Path, root: str | Path) -> bool:
    """True if `path` (relative ones are taken relative to `root`) resolves inside `root`."""
    root_path = Path(root).resolve()
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = root_path / candidate
    # resolve() follows symlinks, so a link inside the run folder cannot point outside it.
    return candidate.resolve().is_relative_to(root_path)


class _Fields:
    """Typed, bounded access to one event object's fields."""

    def __init__(self, obj: dict[str, Any]) -> None:
        self._obj = obj
        self._type = obj.get("type")

    def _get(self, key: str) -> Any:
        if key not in self._obj:
            raise ProtocolError(
                "The engine's {event} event lacks the field {field}.",
                values={"event": repr(self._type), "field": repr(key)},
            )
        return self._obj[key]

    def _wrong(self, key: str, expected: str) -> ProtocolError:
        return ProtocolError(
            "The engine's {event} event has {field} = {value}, expected {expected}.",
            values={
                "event": repr(self._type),
                "field": repr(key),
                "value": _preview(self._obj[key]),
                "expected": expected,
            },
        )

    def integer(self, key: str, low: int = -(2**31), high: int = 2**31 - 1) -> int:
        value = self._get(key)
        # bool is an int subclass in Python; JSON true is not a step number.
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise self._wrong(key, f"an integer in {low}..{high}")
        return value

    def step(self, key: str = "step") -> int:
        return self.integer(key, 0, MAX_STEPS)

    def number(self, key: str) -> float:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._wrong(key, "a number")
        value = float(value)
        if not math.isfinite(value) or value < 0:
            raise self._wrong(key, "a finite number ≥ 0")
        return value

    def optional_number(self, key: str) -> float | None:
        return self.number(key) if key in self._obj else None

    def string(self, key: str) -> str:
        return _bounded_string(self._get(key), lambda: self._wrong(key, "a short string"))

    def devices(self, key: str) -> tuple[Device, ...]:
        value = self._get(key)
        if not isinstance(value, list) or len(value) > MAX_LIST_ITEMS:
            raise self._wrong(key, f"a list of at most {MAX_LIST_ITEMS} devices")
        devices = []
        for item in value:
            if not isinstance(item, dict):
                raise self._wrong(key, "a list of {name, description} objects")
            inner = _Fields({**item, "type": self._type})
            devices.append(Device(inner.string("name"), inner.string("description")))
        return tuple(devices)

    def outputs(self, key: str) -> dict[str, str]:
        if key not in self._obj:
            return {}
        value = self._obj[key]
        if not isinstance(value, dict) or len(value) > MAX_LIST_ITEMS:
            raise self._wrong(key, f"an object of at most {MAX_LIST_ITEMS} paths")
        result = {}
        for name, path in value.items():
            error = lambda: self._wrong(key, "an object of short string paths")  # noqa: E731
            result[_bounded_string(name, error)] = _bounded_string(path, error)
        return result


def _bounded_string(value: Any, error: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_STRING_CHARS or "\x00" in value:
        raise error()
    return value


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _preview(value: object, limit: int = 80) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else repr(value)
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _stopped(r: _Fields) -> Stopped:
    reason = r.string("reason")
    if reason not in STOP_REASONS:
        raise ProtocolError(
            "The engine's stopped event has the unknown reason {reason}.",
            values={"reason": repr(reason)},
        )
    return Stopped(reason, r.step())


_PARSERS: dict[str, Callable[[_Fields], Event]] = {
    "hello": lambda r: Hello(
        r.string("version"),
        r.string("pin"),
        r.string("stage"),
        r.devices("devices"),
        r.string("device"),
    ),
    "load": lambda r: Load(
        r.string("model"), r.string("path"), r.string("device"), r.number("seconds")
    ),
    "progress": lambda r: Progress(
        r.step(), r.step("steps"), r.number("seconds"), r.number("seconds_per_step")
    ),
    "checkpoint": lambda r: Checkpoint(r.step(), r.string("path"), r.optional_number("seconds")),
    "preview": lambda r: Preview(r.step(), r.string("path")),
    "paused": lambda r: Paused(r.step()),
    "resumed": lambda r: Resumed(r.step()),
    "stopped": _stopped,
    "done": lambda r: Done(r.number("seconds"), r.outputs("outputs")),
    "error": lambda r: ErrorEvent(r.integer("code", 0, 255), r.string("message")),
}
