"""Painter and prepare speed: dab stamping on a 4096×4096 mask, a long stroke, and preparing +
exporting a 4096×4096 picture. Prints one table with the targets and measured/target ratios.

    .venv/bin/python bench/painter.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.imaging import brush  # noqa: E402
from app.imaging.prepare import (  # noqa: E402
    PrepareOptions,
    composite_prepared,
    export_prepared,
    prepare,
)

CANVAS_PX = 4096
DAB_P95_TARGET_MS = 4.0
# A stroke must keep up with the pointer: 500 dabs of a mid-size brush within half a second.
STROKE_TARGET_MS = 500.0
PREPARE_TARGET_MS = 300.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100.0 * (len(ordered) - 1))))]


def time_ms(action: Callable[[], object], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def bench_dabs(rows: list[tuple], dabs: int) -> None:
    rng = np.random.default_rng(0)
    # np.full writes every page: a canvas that has been shown or painted once. A fresh
    # np.zeros canvas page-faults on first touch (the "cold" row below).
    mask = np.full((CANVAS_PX, CANVAS_PX), 0.0, np.float32)
    cases = [  # (diameter px, hardness, erase)
        (8, 1.0, False),
        (8, 0.5, False),
        (64, 1.0, False),
        (64, 0.5, False),
        (256, 1.0, False),
        (256, 0.0, False),
        (512, 1.0, False),
        (512, 0.5, False),
        (512, 0.5, True),
    ]
    for diameter, hardness, erase in cases:
        kernel = brush.dab_kernel(diameter, hardness)
        centres = rng.uniform(0, CANVAS_PX, size=(dabs, 2))
        times = []
        for x, y in centres:
            start = time.perf_counter()
            brush.stamp_dab(mask, x, y, kernel, 0.8, erase=erase)
            times.append((time.perf_counter() - start) * 1000.0)
        p95 = percentile(times, 95)
        rows.append(
            (
                f"{'erase' if erase else 'dab'} d={diameter} hardness={hardness}",
                statistics.median(times),
                p95,
                f"p95 ≤ {DAB_P95_TARGET_MS:g} ms",
                p95 / DAB_P95_TARGET_MS,
            )
        )
    cold = np.zeros((CANVAS_PX, CANVAS_PX), np.float32)
    kernel = brush.dab_kernel(512, 1.0)
    times = []
    for x, y in rng.uniform(0, CANVAS_PX, size=(dabs, 2)):
        start = time.perf_counter()
        brush.stamp_dab(cold, x, y, kernel, 1.0)
        times.append((time.perf_counter() - start) * 1000.0)
    rows.append(
        (
            "dab d=512 on a fresh np.zeros canvas",
            statistics.median(times),
            percentile(times, 95),
            "(info: cold)",
            None,
        )
    )


def bench_stroke(rows: list[tuple]) -> None:
    mask = np.zeros((CANVAS_PX, CANVAS_PX), np.float32)
    diameter = 64
    kernel = brush.dab_kernel(diameter, 0.5)
    spacing = brush.dab_spacing_px(diameter)
    length = 499 * spacing  # 500 dabs including the first

    def stroke() -> None:
        # Drawn as 50 pointer events, like a real drag.
        last = (100.0, 100.0)
        points = [last]
        for i in range(1, 51):
            t = i / 50
            p = (100.0 + length * t * 0.8, 100.0 + length * t * 0.6)
            points += brush.stroke_points(last, p, spacing, include_start=False)
            last = p
        brush.stamp_stroke(mask, points, kernel, 1.0)

    times = time_ms(stroke, 5)
    rows.append(
        (
            "stroke 500 dabs d=64 (total)",
            statistics.median(times),
            max(times),
            f"≤ {STROKE_TARGET_MS:g} ms",
            statistics.median(times) / STROKE_TARGET_MS,
        )
    )


def bench_prepare(rows: list[tuple], repeats: int) -> None:
    rng = np.random.default_rng(1)
    y, x = np.mgrid[0:CANVAS_PX, 0:CANVAS_PX]
    image = np.stack([x // 16 % 256, y // 16 % 256, (x + y) // 32 % 256], -1).astype(np.uint8)
    image = (image + rng.integers(0, 8, image.shape, dtype=np.uint8)).astype(np.uint8)
    image = image[:4090, :4093].copy()  # not a multiple of 16: alignment has work to do
    mask = np.zeros(image.shape[:2], np.uint8)
    mask[1000:2200, 1500:2600] = 255
    options = PrepareOptions()
    prep_times = time_ms(lambda: prepare(image, mask, options), repeats)
    soft = mask.astype(np.float32) / 255.0  # what the canvas hands over
    soft_times = time_ms(lambda: prepare(image, soft, options), repeats)
    prepared = prepare(image, mask, options)
    rows.append(
        (
            "prepare 4093×4090 (align+fill+hash)",
            statistics.median(prep_times),
            max(prep_times),
            f"≤ {PREPARE_TARGET_MS:g} ms",
            statistics.median(prep_times) / PREPARE_TARGET_MS,
        )
    )
    rows.append(
        (
            "prepare, float32 canvas mask",
            statistics.median(soft_times),
            max(soft_times),
            f"≤ {PREPARE_TARGET_MS:g} ms",
            statistics.median(soft_times) / PREPARE_TARGET_MS,
        )
    )
    small = PrepareOptions(only_masked=True)
    only_times = time_ms(lambda: prepare(image, mask, small), repeats)
    rows.append(
        (
            "prepare only-masked 4093×4090",
            statistics.median(only_times),
            max(only_times),
            f"≤ {PREPARE_TARGET_MS:g} ms",
            statistics.median(only_times) / PREPARE_TARGET_MS,
        )
    )
    result = np.zeros_like(prepared.image)
    times = time_ms(lambda: composite_prepared(prepared, result), repeats)
    rows.append(
        (
            "composite 4093×4090, feather 8 (info)",
            statistics.median(times),
            max(times),
            "(info)",
            None,
        )
    )
    with tempfile.TemporaryDirectory() as folder:
        for level in (0, 1):
            target = Path(folder) / f"level{level}"
            times = time_ms(
                lambda out=target, lv=level: export_prepared(out, prepared, lv), repeats
            )
            size_mb = sum(p.stat().st_size for p in target.iterdir()) / 1e6
            total = statistics.median(times) + statistics.median(prep_times)
            rows.append(
                (
                    f"export, PNG level {level} ({size_mb:.0f} MB)",
                    statistics.median(times),
                    max(times),
                    "(info)",
                    None,
                )
            )
            rows.append(
                (
                    f"prepare + export, level {level}",
                    total,
                    None,
                    f"≤ {PREPARE_TARGET_MS:g} ms",
                    total / PREPARE_TARGET_MS,
                )
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    rows: list[tuple] = []
    bench_dabs(rows, 100 if args.quick else 400)
    bench_stroke(rows)
    bench_prepare(rows, 2 if args.quick else 5)
    print(f"{'measurement':<40}{'p50 ms':>9}{'p95/max':>9}  {'target':<14}{'ratio':>6}")
    for name, p50, p95, target, ratio in rows:
        worst = f"{p95:9.2f}" if p95 is not None else f"{'':>9}"
        shown = f"{ratio:6.2f}" if ratio is not None else f"{'':>6}"
        print(f"{name:<40}{p50:9.2f}{worst}  {target:<14}{shown}")
    print("ratio = measured / target (p95 for dabs, median otherwise); ≤ 1.00 meets the target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
