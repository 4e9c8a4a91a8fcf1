"""A picture's generation parameters inside its PNG: writing them (atomically) and reading back.

Two text chunks, placed right after IHDR so viewers that stop early still find them:

    parameters   A1111-style text (prompt, "Negative prompt: …", "Steps: 4, Sampler: …") that
                 image viewers and other tools show; tEXt when it is Latin-1, else iTXt (UTF-8)
    stepwise     iTXt, UTF-8 JSON: {"kind": "stepwise-parameters", "format": 1, "spec": {...}}
                 and, for a picture that is not the run's result, "picture": {"kind":
                 "preview" | "decoded", "step": k, "steps": n} (a step of the run, not its end)
                 — the job's values, which Stepwise reads back into its job form

Reading is bounded (a chunk over MAX_TEXT_BYTES, a broken chunk or a non-PNG file is an
InputError naming the file); a PNG without the chunks reads as empty parameters.
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.core.atomic import write_bytes_atomic
from app.core.errors import InputError
from app.imaging.io import encode_png

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PARAMETERS_KEY = "parameters"
STEPWISE_KEY = "stepwise"
KIND = "stepwise-parameters"
FORMAT = 1
MAX_TEXT_BYTES = 1 << 20
SAVE_PNG_LEVEL = 6


@dataclass(frozen=True)
class PngParameters:
    """What a PNG says about how it was made (empty when it says nothing)."""

    text: str = ""  # the A1111-style "parameters" text
    spec: dict[str, Any] = field(default_factory=dict)  # Stepwise's own JSON, {} if absent
    picture: dict[str, Any] = field(default_factory=dict)  # a step's picture: which; {} result

    @property
    def has_settings(self) -> bool:
        return bool(self.spec)


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def text_chunk(key: str, text: str) -> bytes:
    """tEXt when the text is Latin-1 (what most viewers read), else iTXt (UTF-8)."""
    try:
        return _chunk(b"tEXt", key.encode("latin-1") + b"\0" + text.encode("latin-1"))
    except UnicodeEncodeError:
        return itxt_chunk(key, text)


def itxt_chunk(key: str, text: str) -> bytes:
    # keyword, NUL, compression flag 0, method 0, empty language tag, NUL, empty translated key
    return _chunk(b"iTXt", key.encode("latin-1") + b"\0\0\0\0\0" + text.encode("utf-8"))


def with_text_chunks(png: bytes, chunks: list[bytes]) -> bytes:
    """`png` with `chunks` inserted after IHDR."""
    if not png.startswith(PNG_SIGNATURE):
        raise ValueError("not PNG data")
    (length,) = struct.unpack(">I", png[8:12])
    end_of_ihdr = 8 + 12 + length
    return png[:end_of_ihdr] + b"".join(chunks) + png[end_of_ihdr:]


def encode_png_with_parameters(
    image: np.ndarray, text: str, spec: dict[str, Any], picture: dict[str, Any] | None = None
) -> bytes:
    body: dict[str, Any] = {"kind": KIND, "format": FORMAT, "spec": spec}
    if picture:
        body["picture"] = picture
    payload = json.dumps(body, ensure_ascii=False, sort_keys=True)
    chunks = [text_chunk(PARAMETERS_KEY, text), itxt_chunk(STEPWISE_KEY, payload)]
    return with_text_chunks(encode_png(image, SAVE_PNG_LEVEL), chunks)


def save_png_with_parameters(
    path: Path | str,
    image: np.ndarray,
    text: str,
    spec: dict[str, Any],
    picture: dict[str, Any] | None = None,
) -> Path:
    """Writes `image` (HxWx3 uint8) as a PNG carrying `text` and `spec` (and `picture`: which
    step's picture it is, when it is not the run's result), atomically."""
    path = Path(path)
    write_bytes_atomic(path, encode_png_with_parameters(image, text, spec, picture))
    return path


def _text_chunks(path: Path, data: bytes) -> dict[str, str]:
    if not data.startswith(PNG_SIGNATURE):
        raise InputError(
            "{path} is not a PNG file.", path=path, fix="Choose a PNG saved by Stepwise."
        )
    found: dict[str, str] = {}
    pos = len(PNG_SIGNATURE)
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if len(body) != length:
            break  # truncated: what was read so far stands
        pos += 12 + length
        if kind == b"IEND":
            break
        if kind not in (b"tEXt", b"iTXt") or length > MAX_TEXT_BYTES:
            continue
        key, _, rest = body.partition(b"\0")
        name = key.decode("latin-1")
        if kind == b"tEXt":
            found[name] = rest.decode("latin-1")
            continue
        if len(rest) < 2 or rest[0] != 0:
            continue  # compressed iTXt: not ours
        _lang, _, rest = rest[2:].partition(b"\0")
        _translated, _, text = rest.partition(b"\0")
        found[name] = text.decode("utf-8", errors="replace")
    return found


def read_png_parameters(path: Path | str) -> PngParameters:
    """The parameters a PNG carries; empty when it carries none."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(
            "Cannot read {path}: {reason}.",
            path=path,
            fix="Check that the file exists and can be read.",
            values={"reason": exc.strerror or str(exc)},
        ) from exc
    texts = _text_chunks(path, data)
    spec: dict[str, Any] = {}
    picture: dict[str, Any] = {}
    raw = texts.get(STEPWISE_KEY)
    if raw:
        try:
            payload = json.loads(raw)
        except (ValueError, RecursionError):  # any bad chunk means "no settings"
            payload = None
        if isinstance(payload, dict) and payload.get("kind") == KIND:
            body = payload.get("spec")
            spec = body if isinstance(body, dict) else {}
            which = payload.get("picture")
            picture = which if isinstance(which, dict) else {}
    return PngParameters(texts.get(PARAMETERS_KEY, ""), spec, picture)
