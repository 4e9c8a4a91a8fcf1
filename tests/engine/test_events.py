from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine.errors import ProtocolError
from app.engine.events import (
    MAX_LINE_BYTES,
    Checkpoint,
    Device,
    Done,
    ErrorEvent,
    Hello,
    Load,
    Paused,
    Preview,
    Progress,
    Resumed,
    Stopped,
    parse_event,
    path_inside,
)


def line(kind: str, **fields: object) -> bytes:
    return json.dumps({"v": 1, "type": kind, **fields}).encode() + b"\n"


def test_every_event_type_parses_to_its_dataclass() -> None:
    hello = parse_event(
        line(
            "hello",
            version="0.1",
            pin="596",
            stage="diffuse",
            devices=[{"name": "Vulkan0", "description": "llvmpipe"}],
            device="Vulkan0",
        )
    )
    assert hello == Hello("0.1", "596", "diffuse", (Device("Vulkan0", "llvmpipe"),), "Vulkan0")
    assert parse_event(line("load", model="vae", path="v.st", device="CPU", seconds=1)) == Load(
        "vae", "v.st", "CPU", 1.0
    )
    assert parse_event(
        line("progress", step=2, steps=4, seconds=0.5, seconds_per_step=0.25)
    ) == Progress(2, 4, 0.5, 0.25)
    assert parse_event(line("checkpoint", step=0, path="c/step_000.bin")) == Checkpoint(
        0, "c/step_000.bin"
    )
    assert parse_event(line("preview", step=3, path="p.png")) == Preview(3, "p.png")
    assert parse_event(line("paused", step=3)) == Paused(3)
    assert parse_event(line("resumed", step=3)) == Resumed(3)
    assert parse_event(line("stopped", reason="suspended", step=3)) == Stopped("suspended", 3)
    assert parse_event(line("done", seconds=2.5, outputs={"latent": "f.bin"})) == Done(
        2.5, {"latent": "f.bin"}
    )
    assert parse_event(line("error", code=5, message="bad")) == ErrorEvent(5, "bad")
    assert parse_event(
        line("progress", step=1, steps=2, seconds=1, seconds_per_step=1, extra="fields are ignored")
    ) == Progress(1, 2, 1.0, 1.0)


def test_checkpoint_write_time_is_optional() -> None:
    event = parse_event(line("checkpoint", step=1, path="s.bin", seconds=0.02))
    assert event == Checkpoint(1, "s.bin", 0.02)
    assert parse_event(line("checkpoint", step=1, path="s.bin")).seconds is None
    with pytest.raises(ProtocolError):
        parse_event(line("checkpoint", step=1, path="s.bin", seconds="fast"))


def test_str_input_and_crlf() -> None:
    assert parse_event('{"v":1,"type":"paused","step":1}\r\n') == Paused(1)


def test_unknown_type_is_ignored() -> None:
    assert parse_event(line("sparkles", step=1)) is None


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"",
        b"[1,2]",
        b'"hello"',
        b'{"type":"paused","step":1}',  # no version
        b'{"v":2,"type":"paused","step":1}',  # other version
        b'{"v":1}',  # no type
        b'{"v":1,"type":7}',
        b'{"v":1,"type":"paused"}',  # missing field
        b'{"v":1,"type":"paused","step":"1"}',
        b'{"v":1,"type":"paused","step":true}',
        b'{"v":1,"type":"paused","step":-1}',
        b'{"v":1,"type":"paused","step":1e3}',
        b'{"v":1,"type":"load","model":"vae","path":"p","device":"d","seconds":NaN}',
        b'{"v":1,"type":"load","model":"vae","path":"p","device":"d","seconds":1e999}',
        b'{"v":1,"type":"load","model":"vae","path":"p","device":"d","seconds":-1}',
        b'{"v":1,"type":"load","model":"vae","path":7,"device":"d","seconds":1}',
        b'{"v":1,"type":"checkpoint","step":1,"path":"a\\u0000b"}',
        b'{"v":1,"type":"hello","version":"1","pin":"p","stage":"s","devices":{},"device":"d"}',
        b'{"v":1,"type":"hello","version":"1","pin":"p","stage":"s","devices":[1],"device":"d"}',
        b'{"v":1,"type":"stopped","reason":"bored","step":1}',
        b'{"v":1,"type":"done","seconds":1,"outputs":{"a":1}}',
        b'{"v":1,"type":"done","seconds":1,"outputs":[]}',
        b'{"v":1,"type":"error","code":999,"message":"m"}',
        b"\xff\xfe\x00",
        b"[" * 100_000 + b"]" * 100_000,  # deep nesting, but also oversized
        b"[" * 30_000 + b"]" * 30_000,  # deep nesting within the size limit
    ],
)
def test_malformed_lines_raise_protocol_error(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        parse_event(raw)


def test_oversized_line_is_refused_before_parsing() -> None:
    raw = line("checkpoint", step=1, path="x" * MAX_LINE_BYTES)
    with pytest.raises(ProtocolError, match="limit"):
        parse_event(raw)


def test_long_strings_and_lists_are_bounded() -> None:
    with pytest.raises(ProtocolError):
        parse_event(line("checkpoint", step=1, path="x" * 5000))
    devices = [{"name": "d", "description": "x"}] * 65
    with pytest.raises(ProtocolError):
        parse_event(line("hello", version="1", pin="p", stage="s", devices=devices, device="d"))


def test_path_inside(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    assert path_inside(run / "checkpoints" / "step_001.bin", run)
    assert path_inside("checkpoints/step_001.bin", run)
    assert not path_inside(run / ".." / "elsewhere.bin", run)
    assert not path_inside("../run2/x", run)
    assert not path_inside("/etc/passwd", run)
    assert not path_inside(tmp_path / "run-other" / "x", run)
    (run / "link").symlink_to(tmp_path)
    assert not path_inside(run / "link" / "x", run)
