"""The one placement rule (canvas/generated.py): every frame of a run (step preview, decoded
step, result) lands where the run's prepare record says, in the open photo's coordinates;
an outpainted run's frame starts left of and above the photo."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.canvas.generated import RunPlacement
from app.imaging.geometry import Rect, Size
from app.imaging.prepare import PrepareOptions, composite_prepared, export_prepared, prepare

W, H = 160, 108  # room for the 32-px outpaint ramp (imaging/frame.RAMP_PX) and the feather


def _photo() -> np.ndarray:
    y, x = np.mgrid[0:H, 0:W]
    return np.stack([x * 3, y * 4, (x + y) % 256], axis=-1).astype(np.uint8)


def _prepared(tmp_path: Path, **options: object) -> Path:
    mask = np.zeros((H, W), np.uint8)
    mask[10:30, 20:40] = 255
    prepared = prepare(_photo(), mask, PrepareOptions(feather_px=4, **options))  # type: ignore[arg-type]
    folder = tmp_path / "prepared"
    export_prepared(folder, prepared)
    return folder


def test_an_outpainted_run_is_placed_around_the_photo(tmp_path: Path) -> None:
    folder = _prepared(tmp_path, expand="12,0,12,6")
    placement = RunPlacement.of_prepared(folder)
    # The open photo is the photo as given; the run's frame is the expanded canvas around it.
    assert placement.photo_size == Size(W, H)
    assert placement.frame == Rect(-12, 0, W + 24, H + 6)
    model = placement.compositor.plan.aligned_size
    generated = np.full((model.height, model.width, 3), 200, np.uint8)
    # A step preview (the 1/8 projection) and a decoded frame land in place, reaching into the
    # new area left of the photo, never at the photo's top-left corner.
    small = np.full((model.height // 8, model.width // 8, 3), 200, np.uint8)
    for frame in (placement.composited(small), placement.composited(generated)):
        assert frame.at.x == -12 and frame.at.right == W + 12 and frame.canvas == placement.frame
    raw = placement.raw(generated)
    assert raw.at.x == -12 and raw.at.width >= W + 24
    # The result (the whole expanded composite) covers the frame, and the whole picture built
    # from a placed frame is the composite itself.
    result = composite_prepared(folder, generated)
    assert placement.result(result).at == placement.frame
    whole = placement.whole(placement.composited(generated))
    assert whole.shape == result.shape
    # Away from the mask and the seams the photo is in place, inside the frame at (12, 0).
    assert np.array_equal(whole[36:42, 12 + 80 : 12 + 100], _photo()[36:42, 80:100])


def test_a_plain_run_is_placed_on_the_photo(tmp_path: Path) -> None:
    placement = RunPlacement.of_prepared(_prepared(tmp_path, only_masked=True, padding_px=4))
    assert placement.frame == Rect(0, 0, W, H)
    model = placement.compositor.plan.aligned_size
    frame = placement.composited(np.zeros((model.height, model.width, 3), np.uint8))
    assert frame.at.x >= 0 and frame.at.y >= 0 and frame.canvas == Rect(0, 0, W, H)
