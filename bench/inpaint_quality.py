"""Inpainting quality on real photos: seam error with and without colour match, and pre-fill.

    python bench/inpaint_quality.py [--photos astronaut,coffee,...] [--shift 10]

Needs scikit-image (`pip install -e .[bench]`): its sample photos (they ship inside the
wheel) and its CIEDE2000. Every figure is measured side by side in one run.

(a) Seam error. The "generated" picture is the photo itself, shifted in CIE LAB over the area
    the engine repaints (the mask and its 16-px cells' reach) by a known amount (mean ΔE2000
    ≈ --shift over the mask), so the hidden original is the truth. Composited off / colour
    match / Poisson seam blend / both, the table gives ΔE2000 against the truth in an 8-px ring
    inside the seam and one outside it, and the gradient jump across the seam (the mean norm
    of the LAB gradient's difference from the truth's in a 3-px band on the seam). The same
    with an unshifted generation (the photo plus σ=2 noise, as a VAE round trip leaves it).
    Target: colour match removes ≥ 60 % of the ring ΔE and worsens the unshifted ring by at
    most 0.5 ΔE.
(a2)–(a4) Colour match's stress rows, randomized false-accept test and cost
    (bench/color_stress.py), with the peers' rows.
(b) Pre-fill: each fill's error against the hidden original in the masked area (mean L1 over
    RGB, and the gradient error), per photo and as a ratio to grey.
(c) Soft-mask curve and (d) source-reference cost: placeholders for the branches that build
    those (soft_mask_curve, source_reference_cost below).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.imaging.fill import FILL_MODES, fill_masked  # noqa: E402
from bench import color_stress  # noqa: E402
from bench.color_cases import PHOTOS as COLOUR_PHOTOS  # noqa: E402
from bench.color_cases import seam_error, seam_speed  # noqa: E402
from bench.color_kit import set_peers  # noqa: E402

PHOTOS = ("astronaut", "coffee", "chelsea", "camera", "rocket", "immunohistochemistry")


def _skimage():  # an optional module
    try:
        import skimage.color
        import skimage.data
    except ImportError:
        sys.exit("bench/inpaint_quality.py needs scikit-image: pip install -e '.[bench]'")
    return skimage


def load_photo(name: str) -> np.ndarray:
    photo = getattr(_skimage().data, name)()
    if photo.ndim == 2:
        photo = np.repeat(photo[:, :, None], 3, axis=2)
    return np.ascontiguousarray(photo[:, :, :3]).astype(np.uint8)


def masks_for(height: int, width: int) -> list[tuple[str, np.ndarray]]:
    """A disc in the middle, an ellipse off-centre, a rectangle near a corner."""
    side = min(height, width)
    y, x = np.mgrid[0:height, 0:width]
    disc = (x - width / 2) ** 2 + (y - height / 2) ** 2 <= (0.18 * side) ** 2
    ex, ey, ax, ay = 0.3 * width, 0.62 * height, 0.16 * side, 0.1 * side
    ellipse = ((x - ex) / ax) ** 2 + ((y - ey) / ay) ** 2 <= 1.0
    rect = np.zeros((height, width), bool)
    rect[int(0.12 * height) : int(0.38 * height), int(0.6 * width) : int(0.88 * width)] = True
    return [
        (name, np.where(m, np.uint8(255), np.uint8(0)))
        for name, m in (("disc", disc), ("ellipse", ellipse), ("rect", rect))
    ]


def _gradient_error(filled: np.ndarray, truth: np.ndarray, where: np.ndarray) -> float:
    def grads(picture: np.ndarray) -> np.ndarray:
        f = picture.astype(np.float32)
        gx = cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3) / 8.0
        gy = cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3) / 8.0
        return np.concatenate([gx, gy], axis=2)

    diff = grads(filled) - grads(truth)
    return float(np.sqrt((diff**2).sum(axis=2))[where].mean())


def prefill(photos: list[str]) -> str:
    """(b): prints the fill table; returns the fill with the lowest mean L1 error."""
    print("\n(b) pre-fill: error against the hidden original in the masked area")
    print("    L1 = mean |RGB difference|; grad = mean norm of the RGB gradient difference")
    modes = [m for m in FILL_MODES if m != "none"] + ["none"]
    print(f"{'photo/mask':<26}" + "".join(f"{m + ' L1/grad':>16}" for m in modes))
    l1: dict[str, list[float]] = {m: [] for m in modes}
    grad: dict[str, list[float]] = {m: [] for m in modes}
    seconds: dict[str, float] = dict.fromkeys(modes, 0.0)
    for photo_name in photos:
        photo = load_photo(photo_name)
        for mask_name, mask in masks_for(*photo.shape[:2]):
            on = mask >= 128
            cells = []
            for mode in modes:
                start = time.perf_counter()
                filled = fill_masked(photo, mask, mode)  # type: ignore[arg-type]
                seconds[mode] += time.perf_counter() - start
                if mode == "none":
                    # "none" keeps the original: its error is 0 by construction, and meaningless
                    # (the model sees what it should replace); listed for completeness.
                    pass
                e1 = float(np.abs(filled[on].astype(int) - photo[on].astype(int)).mean())
                eg = _gradient_error(filled, photo, on)
                l1[mode].append(e1)
                grad[mode].append(eg)
                cells.append(f"{e1:9.1f}/{eg:<6.1f}")
            print(f"{photo_name + '/' + mask_name:<26}" + "".join(cells))
    print(
        f"{'mean':<26}" + "".join(f"{np.mean(l1[m]):9.1f}/{np.mean(grad[m]):<6.1f}" for m in modes)
    )
    grey_l1, grey_grad = float(np.mean(l1["grey"])), float(np.mean(grad["grey"]))
    print(
        f"{'ratio to grey':<26}"
        + "".join(
            f"{np.mean(l1[m]) / grey_l1:9.2f}/{np.mean(grad[m]) / grey_grad:<6.2f}" for m in modes
        )
    )
    count = len(l1["grey"])
    print(f"{'ms per fill':<26}" + "".join(f"{1000 * seconds[m] / count:16.1f}" for m in modes))
    ranked = sorted((m for m in modes if m != "none"), key=lambda m: float(np.mean(l1[m])))
    best, second = ranked[0], ranked[1]
    margin = 1.0 - float(np.mean(l1[best])) / float(np.mean(l1[second]))
    print(
        f"\n    lowest L1: {best} ({100 * margin:.0f} % below the next, {second}); "
        f"lowest gradient error: {min(ranked, key=lambda m: float(np.mean(grad[m])))}"
    )
    return best


def _script(name: str) -> None:
    """Another bench's table, in this run (its own process: it builds and uses the engine)."""
    script = Path(__file__).with_name(name)
    print(f"\n--- {name} ---", flush=True)
    subprocess.run([sys.executable, str(script)], check=False)


def soft_mask_curve() -> None:
    """(c) the soft-mask (differential diffusion) curve: the mean change per pixel binned by
    the soft-mask value, soft and hard mode side by side (bench/soft_mask.py)."""
    _script("soft_mask.py")


def source_reference_cost() -> None:
    """(d) s/step and plan bytes of diffuse with and without the prepared source as the first
    reference image, at 512² and 1024² (bench/source_ref_cost.py)."""
    _script("source_ref_cost.py")


SECTIONS: dict[str, Callable[..., object]] = {
    "seam": seam_error,
    "stress": color_stress.stress,
    "random": color_stress.randomized,
    "cost": color_stress.cost,
    "speed": seam_speed,
    "fill": prefill,
    "soft": soft_mask_curve,
    "ref": source_reference_cost,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", default=",".join(PHOTOS), help="skimage.data names")
    parser.add_argument(
        "--colour-photos",
        default=",".join(COLOUR_PHOTOS),
        help="photos of (a): skimage.data names, stripes, noise",
    )
    parser.add_argument("--shift", type=float, default=10.0, help="ΔE2000 of the drift")
    parser.add_argument("--only", choices=tuple(SECTIONS), help="one section")
    args = parser.parse_args()
    photos = [p for p in args.photos.split(",") if p]
    set_peers(True)  # the peers' rows side by side (bench/color_cases.py alone: faster)
    if args.only in (None, "seam"):
        seam_error(args.colour_photos.split(","), args.shift)
    if args.only in (None, "stress"):
        color_stress.stress()
    if args.only in (None, "random"):
        color_stress.randomized()
    if args.only in (None, "cost"):
        color_stress.cost()
    if args.only in (None, "speed"):
        seam_speed()
    if args.only in (None, "fill"):
        prefill(photos)
    if args.only in (None, "soft"):
        soft_mask_curve()
    if args.only in (None, "ref"):
        source_reference_cost()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
