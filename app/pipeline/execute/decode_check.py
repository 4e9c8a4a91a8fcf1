"""A decode is a picture or a failure, never a grey square (sd.cpp #1220: an out-of-memory VAE
decode saved a constant image and logged success).

check_latent: the final latent holds NaN or Inf → nothing can decode it (diffuse went wrong:
the run's checkpoints from before it may still be good). check_decoded: the decoded PNG is one
colour → the decode failed silently; memory_retry retries it with the next memory setting
(tiled, then the CPU).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.core.errors import StepwiseError
from app.engine.tensorfile import read_tensors

# Largest difference between any two pixel values (0..255) for a picture to count as constant.
CONSTANT_RANGE = 0


class BadDecodeError(StepwiseError):
    """The decode produced no picture: constant image, or a NaN / Inf latent.

    retry: whether another memory setting may decode it (a constant image: yes; a bad latent:
    no)."""

    def __init__(self, message: str, *, path: Path, fix: str, values: dict[str, object],
                 retry: bool) -> None:  # fmt: skip
        super().__init__(message, path=path, fix=fix, values=values)
        self.retry = retry


def check_latent(path: Path) -> None:
    """Raises BadDecodeError (no retry) when the latent holds NaN or Inf."""
    for name, tensor in read_tensors(path).items():
        if tensor.dtype.kind == "f" and not np.isfinite(tensor).all():
            bad = int(np.count_nonzero(~np.isfinite(tensor)))
            raise BadDecodeError(
                "The final latent {path} holds {count} NaN or infinite values ({name}): it "
                "cannot be decoded to a picture.",
                path=path,
                fix="Run diffuse again (change the seed or the steps), or decode an earlier "
                "step; a different device or flash attention setting may avoid it.",
                values={"count": bad, "name": name},
                retry=False,
            )


def check_decoded(path: Path) -> None:
    """Raises BadDecodeError (retry) when the decoded picture is a single colour."""
    from app.imaging.io import load_image

    pixels = np.asarray(load_image(path))
    lo, hi = int(pixels.min()), int(pixels.max())
    if hi - lo <= CONSTANT_RANGE:
        path.unlink(missing_ok=True)  # not a picture: nothing may take it for one
        raise BadDecodeError(
            "The VAE decode produced a picture of one colour (value {value}) in {path}: the "
            "decode failed without saying so (often the device ran out of memory).",
            path=path,
            fix="Stepwise retries it tiled, then on the CPU; if that fails too, turn on VAE "
            "tiling with smaller tiles or decode on the CPU.",
            values={"value": lo},
            retry=True,
        )
