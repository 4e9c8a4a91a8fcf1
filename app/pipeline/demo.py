"""The demo set behind "Try with demo models": tiny random-weight models, a picture and a mask.

The models make noise pictures by design; the set only lets a new user walk through the whole
workflow before downloading gigabytes of real weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.paths import AppPaths
from app.engine.tiny_models import ModelSet, generate_models
from app.imaging.io import save_png_atomic

DEMO_SIZE_PX = 256
DEMO_FOLDER = "demo"
DEMO_IMAGE_FILE = "demo-picture.png"
DEMO_MASK_FILE = "demo-mask.png"


@dataclass(frozen=True)
class DemoSet:
    """The demo models plus the picture and mask to open in the painter."""

    models: ModelSet
    image: Path
    mask: Path


def demo_picture(size: int = DEMO_SIZE_PX) -> np.ndarray:
    """A colourful deterministic gradient with a few shapes, RGB uint8."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / max(1, size - 1)
    image = np.stack([x, y, 1.0 - 0.5 * (x + y)], axis=-1) * 255.0
    centre = size / 2
    yy, xx = np.mgrid[0:size, 0:size]
    disc = (xx - centre * 0.6) ** 2 + (yy - centre * 0.6) ** 2 < (size * 0.18) ** 2
    image[disc] = (240, 200, 40)
    square = (abs(xx - size * 0.72) < size * 0.12) & (abs(yy - size * 0.7) < size * 0.12)
    image[square] = (200, 40, 90)
    return image.clip(0, 255).astype(np.uint8)


def demo_mask(size: int = DEMO_SIZE_PX) -> np.ndarray:
    """White centred rectangle (half the picture) on black, uint8."""
    mask = np.zeros((size, size), np.uint8)
    lo, hi = size // 4, size - size // 4
    mask[lo:hi, lo:hi] = 255
    return mask


def prepare_demo(paths: AppPaths) -> DemoSet:
    """Generates (or reuses) the demo set under paths.models_dir / "demo"; seconds on first use."""
    folder = paths.models_dir / DEMO_FOLDER
    models = generate_models(folder)
    image, mask = folder / DEMO_IMAGE_FILE, folder / DEMO_MASK_FILE
    save_png_atomic(image, demo_picture())
    save_png_atomic(mask, demo_mask())
    return DemoSet(models=models, image=image, mask=mask)
