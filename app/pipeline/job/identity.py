"""Fast identities of big files (model weights) and exact hashes of small ones."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from app.core.errors import InputError

FINGERPRINT_CHUNK_BYTES = 1 << 20


class ModelFileError(InputError):
    """A model file named by the job is missing or unreadable (FailureKind.MODEL_FILE)."""


def fingerprint(path: Path | str) -> str:
    """sha256 of size + first MiB + last MiB: reads 2 MiB of a 6 GB model, still catches a
    re-download, a different quantisation or a truncated copy."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            digest = hashlib.sha256(str(size).encode())
            digest.update(f.read(FINGERPRINT_CHUNK_BYTES))
            if size > FINGERPRINT_CHUNK_BYTES:
                f.seek(max(FINGERPRINT_CHUNK_BYTES, size - FINGERPRINT_CHUNK_BYTES))
                digest.update(f.read(FINGERPRINT_CHUNK_BYTES))
    except OSError as exc:
        raise ModelFileError(
            "Cannot read the model file {path}: {reason}.",
            path=path,
            fix="Check the model files under Generate → Setup → Models.",
            values={"reason": exc.strerror or str(exc)},
        ) from exc
    return digest.hexdigest()


def model_identity(path: Path | str) -> dict[str, Any]:
    """What run.json records about a model file: path, size, mtime and content fingerprint."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError as exc:
        raise ModelFileError(
            "The model file {path} does not exist.",
            path=path,
            fix="Choose the model file again under Generate → Setup → Models.",
        ) from exc
    return {
        "path": str(path),
        "size": st.st_size,
        "mtime": st.st_mtime,
        "fingerprint": fingerprint(path),
    }


def identity_key(identity: dict[str, Any] | None) -> str:
    """The part of an identity that names the content (not where it lies)."""
    if not identity:
        return ""
    return f"{identity['size']}:{identity['fingerprint']}"
