"""The samplers and schedulers an sd-stage build offers (`sd-stage --list-samplers`).

The engine prints one JSON line and exits 0:
    {"samplers": [{"name": "euler", "resumable": true}, ...], "schedulers": ["discrete", ...]}
names exactly as --sampling-method / --scheduler accept them; resumable = a run with that
sampler resumes bit-exactly from a checkpoint (the others carry history between steps).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.engine.errors import ProtocolError
from app.engine.events import MAX_LIST_ITEMS
from app.engine.listing import REBUILD_FIX, ask_engine

_NAME = re.compile(r"^[A-Za-z0-9_+.-]{1,64}$")
_FIX = REBUILD_FIX


@dataclass(frozen=True)
class Sampler:
    name: str
    resumable: bool


@dataclass(frozen=True)
class Catalog:
    samplers: tuple[Sampler, ...]
    schedulers: tuple[str, ...]


def list_catalog(engine: Path, env: dict[str, str] | None = None) -> Catalog:
    """Runs the engine once; its answer is untrusted: parsed strictly (ProtocolError)."""
    return parse_catalog(ask_engine(engine, "--list-samplers", "sampler", env), engine)


def parse_catalog(stdout: bytes, engine: Path) -> Catalog:
    """The last non-empty line of `stdout` as a Catalog; ProtocolError naming what is wrong."""
    lines = [ln for ln in stdout.decode("utf-8", "replace").splitlines() if ln.strip()]
    try:
        data: Any = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise ProtocolError("{path} --list-samplers printed no JSON object.", path=engine, fix=_FIX)
    samplers_raw, schedulers_raw = data.get("samplers"), data.get("schedulers")
    if not isinstance(samplers_raw, list) or not isinstance(schedulers_raw, list):
        raise ProtocolError(
            '{path} --list-samplers: "samplers" and "schedulers" must be lists.',
            path=engine,
            fix=_FIX,
        )
    if len(samplers_raw) > MAX_LIST_ITEMS or len(schedulers_raw) > MAX_LIST_ITEMS:
        raise ProtocolError("{path} --list-samplers: too many entries.", path=engine, fix=_FIX)
    samplers = []
    for item in samplers_raw:
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("name"), str)
            or not _NAME.match(item["name"])
            or not isinstance(item.get("resumable"), bool)
        ):
            raise ProtocolError(
                "{path} --list-samplers: bad sampler entry {entry}.",
                path=engine,
                fix=_FIX,
                values={"entry": f"{item!r:.80}"},
            )
        samplers.append(Sampler(item["name"], item["resumable"]))
    for name in schedulers_raw:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ProtocolError(
                "{path} --list-samplers: bad scheduler name {entry}.",
                path=engine,
                fix=_FIX,
                values={"entry": f"{name!r:.80}"},
            )
    names = [s.name for s in samplers]
    if (
        not samplers
        or len(set(names)) != len(names)
        or len(set(schedulers_raw)) != len(schedulers_raw)
    ):
        raise ProtocolError(
            "{path} --list-samplers: empty or repeated names.", path=engine, fix=_FIX
        )
    return Catalog(tuple(samplers), tuple(schedulers_raw))
