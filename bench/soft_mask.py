"""Soft (differential) inpainting benchmark: how much each pixel changes, by its mask value.

    python bench/soft_mask.py [--sd-stage PATH] [--size 256] [--steps 8] [--feather 96]
                              [--seeds 2] [--bins 10]

Runs the same inpainting diffuse (tiny random-weight klein models, CPU) with `--mask-mode soft`
and `--mask-mode hard` on a feathered mask (a disc, 1 inside, falling linearly to 0 over
`--feather` px) and prints the mean change |final latent - init latent| (mean over the 128
channels) binned by the soft mask's value, for both modes side by side, averaged over the
seeds: per pixel (each pixel gets its 16-px cell's change and is binned by its own mask value)
and per latent cell (binned by the cell's value, the largest of its 16×16 px, which is what the
engine uses). Soft should rise with the mask value from exactly 0 at 0; hard shows one step
where the rounding puts it (0.5). The change is measured on the latent because the tiny
random VAE's attention block mixes the whole picture: its decoded pixels differ everywhere,
even where the latent is the init's bit for bit.

`soft_mask_rows()` and `format_rows()` are what bench/inpaint_quality.py can call.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.engine.argv import DiffuseArgs  # noqa: E402
from app.engine.locate import EngineNotFound, build_engine, find_sd_stage  # noqa: E402
from app.engine.tensorfile import read_tensors  # noqa: E402
from tests.engine.real_engine import (  # noqa: E402
    COND,
    INIT_LATENT,
    Job,
    make_images,
    run_stage,
    stage_args,
)
from tests.models.generate import ModelSet, generate_models  # noqa: E402

CELL = 16
MODES = ("soft", "hard")


@dataclass
class Row:
    """One bin of mask values: (lo, hi]; lo == hi is the exact value."""

    lo: float
    hi: float
    pixels: int
    pixel_change: dict[str, float]  # mode → mean |Δ latent| of the pixels' cells
    cells: int
    latent_change: dict[str, float]  # mode → mean |Δ| per latent value


def feathered_disc(size: int, feather: int) -> np.ndarray:
    """uint8 size×size: 255 in a disc of radius size/5, falling linearly to 0 over `feather` px."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64) + 0.5
    r = np.hypot(xx - size / 2, yy - size / 2)
    inner = size / 5
    return np.rint(np.clip(1.0 - (r - inner) / max(1, feather), 0.0, 1.0) * 255).astype(np.uint8)


def _bins(count: int) -> list[tuple[float, float]]:
    edges = np.linspace(0.0, 1.0, count + 1)
    inner = [(float(a), float(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    inner[-1] = (inner[-1][0], 1.0 - 1e-9)  # 1 exactly gets its own row
    return [(0.0, 0.0), *inner, (1.0, 1.0)]


def _select(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return values == lo if lo == hi else (values > lo) & (values <= hi)


def soft_mask_rows(
    sd_stage: Path,
    models: ModelSet,
    work: Path,
    size: int = 256,
    steps: int = 8,
    feather: int = 96,
    seeds: tuple[int, ...] = (1, 2),
    bins: int = 10,
) -> list[Row]:
    """Runs both modes for every seed in `work` and returns the binned mean changes."""
    from PIL import Image

    images = make_images(work / "images", size, size)
    mask = feathered_disc(size, feather)
    Image.fromarray(mask).save(work / "mask.png")
    soft_px = mask / 255.0
    soft_cell = soft_px.reshape(size // CELL, CELL, size // CELL, CELL).max(axis=(1, 3))
    job = Job(
        prompt="a soft edge", width=size, height=size, steps=steps,
        init_image=images.init, mask=work / "mask.png",
    )  # fmt: skip
    stages = stage_args(models, job, work)
    for name in ("vae-encode", "llm-encode"):
        run_stage(sd_stage, stages[name], work / f"{name}.log")
    init_latent = read_tensors(work / INIT_LATENT)["latent"][0].astype(np.float64)
    base = stages["diffuse"]
    assert isinstance(base, DiffuseArgs) and base.load_embeddings == work / COND
    px_change: dict[str, list[np.ndarray]] = {m: [] for m in MODES}
    cell_change: dict[str, list[np.ndarray]] = {m: [] for m in MODES}
    for seed in seeds:
        for mode in MODES:
            out = work / f"{mode}-{seed}"
            out.mkdir()
            args = replace(
                base, seed=seed, mask_mode=mode, save_latent=out / "final.bin",
                checkpoint_dir=out / "checkpoints",
            )  # fmt: skip
            run_stage(sd_stage, args, out / "diffuse.log")
            final = read_tensors(out / "final.bin")["latent"][0]
            change = np.abs(final - init_latent).mean(axis=0)  # [h/16, w/16]
            cell_change[mode].append(change)
            px_change[mode].append(np.kron(change, np.ones((CELL, CELL))))
    px_mean = {m: np.mean(px_change[m], axis=0) for m in MODES}
    cell_mean = {m: np.mean(cell_change[m], axis=0) for m in MODES}
    rows = []
    for lo, hi in _bins(bins):
        at_px, at_cell = _select(soft_px, lo, hi), _select(soft_cell, lo, hi)
        rows.append(
            Row(
                lo, hi, int(at_px.sum()),
                {m: float(px_mean[m][at_px].mean()) if at_px.any() else float("nan")
                 for m in MODES},
                int(at_cell.sum()),
                {m: float(cell_mean[m][at_cell].mean()) if at_cell.any() else float("nan")
                 for m in MODES},
            )
        )  # fmt: skip
    return rows


def format_rows(rows: list[Row]) -> str:
    head = (
        f"{'mask value':>12} {'pixels':>7} {'soft':>8} {'hard':>8}"
        f" {'cells':>6} {'soft':>8} {'hard':>8}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        label = f"{r.lo:.1f}" if r.lo == r.hi else f"({r.lo:.1f}, {min(r.hi, 1.0):.1f}]"
        if r.hi == 1.0 - 1e-9:
            label = f"({r.lo:.1f}, 1.0)"
        lines.append(
            f"{label:>12} {r.pixels:>7} {r.pixel_change['soft']:>8.4f}"
            f" {r.pixel_change['hard']:>8.4f} {r.cells:>6} {r.latent_change['soft']:>8.4f}"
            f" {r.latent_change['hard']:>8.4f}"
        )
    return "\n".join(lines)


def _engine(explicit: Path | None) -> Path:
    try:
        return find_sd_stage(explicit)
    except EngineNotFound:
        print("sd-stage not built yet: running native/build.py …", file=sys.stderr)
        return build_engine(on_line=lambda line: print(line, file=sys.stderr))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sd-stage", type=Path)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--feather", type=int, default=96, help="px over which the mask falls")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--bins", type=int, default=10)
    args = parser.parse_args(argv)
    sd_stage = _engine(args.sd_stage)
    with tempfile.TemporaryDirectory(prefix="stepwise-bench-soft-") as tmp:
        root = Path(tmp)
        models = generate_models(root / "models")
        work = root / "work"
        work.mkdir()
        rows = soft_mask_rows(
            sd_stage, models, work, args.size, args.steps, args.feather,
            tuple(range(1, args.seeds + 1)), args.bins,
        )  # fmt: skip
    print(
        f"soft vs hard mask, {args.size}² px, {args.steps} steps, feather {args.feather} px, "
        f"{args.seeds} seed(s); mean |final - init latent| by mask value: per pixel (its "
        "cell's change; columns 2-4), per latent cell (columns 5-7)"
    )
    print(format_rows(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
