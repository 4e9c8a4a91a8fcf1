"""The X screen of the wine test: an Xvfb display and its picture read from `xwd` (Pillow reads
no XWD; installer/wine_test.py uses it to see that the window opened, and keeps the PNG)."""

from __future__ import annotations

import os
import struct
import subprocess
import time
from pathlib import Path


def grab(display: str | None):
    """The X display as an RGB array (xwd's ZPixmap, 24/32 bit), or None."""
    import numpy as np

    if display is None:
        return None
    result = subprocess.run(["xwd", "-root", "-silent", "-display", display], capture_output=True)
    data = result.stdout
    if result.returncode != 0 or len(data) < 100:
        return None
    header = struct.unpack(">25I", data[:100])
    size, width, height, order = header[0], header[4], header[5], header[7]
    line, ncolors = header[12], header[19]
    if width == 0 or line < width * 4:
        return None  # not a 32-bit-per-pixel ZPixmap (Xvfb's 24-bit screen is one)
    start = size + ncolors * 12
    pixels = np.frombuffer(data[start : start + line * height], np.uint8)
    if pixels.size < line * height:
        return None
    pixels = pixels.reshape(height, line)[:, : width * 4].reshape(height, width, 4)
    return pixels[:, :, [2, 1, 0]] if order == 0 else pixels[:, :, [1, 2, 3]]  # LSB first: BGRX


def blank(picture) -> bool:
    """A screen with no window: one colour (or almost) everywhere."""
    flat = picture.reshape(-1, 3)
    return float(flat.std(axis=0).max()) < 8.0


def save_png(picture, path: Path) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(picture).save(path)


class Xvfb:
    def __init__(self) -> None:
        self.display = f":{70 + os.getpid() % 20}"
        self.proc = subprocess.Popen(
            ["Xvfb", self.display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        socket = Path("/tmp/.X11-unix") / f"X{self.display[1:]}"
        deadline = time.monotonic() + 30
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.1)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
