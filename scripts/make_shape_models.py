#!/usr/bin/env python3
"""Random-weight model sets of the real FLUX.2 [klein] 4B and 9B shapes, for memory planning.

    python scripts/make_shape_models.py OUT_DIR [--shape 4b|9b|all] [--force]

Writes OUT_DIR/klein-<shape>/ with the DiT (GGUF, Q4_0 weights; img_in / txt_in / time_in /
final_layer and norm scales BF16 as a converted file has them), the Qwen3 text encoder
(Qwen3-4B for 4B, Qwen3-8B for 9B: GGUF, Q4_K_M-like - Q4_K token embedding and weights, Q6_K
attn_v / ffn_down in llama.cpp's "more bits" layers; no output.weight, which sd.cpp ignores)
and the FLUX.2 VAE (safetensors F16, 128 base channels). The weights are random quant blocks
with sane scales (app/engine/gguf_blocks.py), so the files load and run but mean nothing;
only their sizes and shapes are real. Layouts and writers are the tiny test models' own
(app/engine/model_layouts.py, app/engine/tiny_vae.py). A 9B set is about 10 GB and takes a few
minutes, mostly disk writes. Never commit the output; bench/memory.py --shape reads it.

A finished set has a models.json stamp (file sizes); a second run with the same arguments
only checks it. Prints the three paths per set.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.gguf_blocks import write_gguf
from app.engine.model_layouts import DitShape, LlmShape, dit_layout, llm_layout
from app.engine.tiny_vae import vae_tensors

SEED = 20_260_601
VOCAB = 151_936
VAE_CHANNELS = 128
STAMP = "models.json"


@dataclass(frozen=True)
class Shape:
    dit: DitShape
    llm: LlmShape


# FLUX.2 [klein] 4B: 5 double + 20 single blocks of hidden 3072 with Qwen3-4B (hidden 2560);
# 9B: 8 double + 24 single blocks of hidden 4096 with Qwen3-8B (hidden 4096). Both Qwen3 have
# 36 layers, 32 heads x 128, 8 kv heads; klein's context is 3 x the LLM hidden size.
SHAPES = {
    "4b": Shape(
        DitShape(3072, 5, 20, context=3 * 2560, real_paths=True),
        LlmShape(2560, 36, 9728, VOCAB, real_paths=True),
    ),
    "9b": Shape(
        DitShape(4096, 8, 24, context=3 * 4096, real_paths=True),
        LlmShape(4096, 36, 12288, VOCAB, real_paths=True),
    ),
}


@dataclass(frozen=True)
class ShapeSet:
    diffusion: Path
    llm: Path
    vae: Path


def shape_set(out_dir: Path, shape: str) -> ShapeSet:
    folder = out_dir / f"klein-{shape}"
    return ShapeSet(
        diffusion=folder / f"klein-{shape}-dit-q4_0.gguf",
        llm=folder / f"klein-{shape}-qwen3-q4_k_m.gguf",
        vae=folder / f"klein-{shape}-vae-f16.safetensors",
    )


def _complete(folder: Path, spec: dict) -> bool:
    try:
        stamp = json.loads((folder / STAMP).read_text(encoding="utf-8"))
        return stamp["spec"] == spec and all(
            (folder / name).stat().st_size == size for name, size in stamp["files"].items()
        )
    except (OSError, ValueError, KeyError, TypeError):
        return False


def make(out_dir: Path, shape: str, force: bool = False) -> ShapeSet:
    paths = shape_set(out_dir, shape)
    folder = paths.diffusion.parent
    spec = {"shape": shape, "seed": SEED, **asdict(SHAPES[shape])}
    if not force and _complete(folder, spec):
        return paths
    need = 12 << 30 if shape == "9b" else 7 << 30
    out_dir.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(out_dir).free
    if free < need:
        raise SystemExit(f"{out_dir}: {free >> 30} GiB free, a {shape} set needs ~{need >> 30} GiB")
    staging = folder.with_name(f".{folder.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    staged = ShapeSet(*(staging / p.name for p in (paths.diffusion, paths.llm, paths.vae)))
    dims = SHAPES[shape]
    started = time.monotonic()
    name = f"klein-{shape} shape (random weights)"
    write_gguf(staged.diffusion, "flux", name, dit_layout(dims.dit, SEED, fast=True))
    write_gguf(staged.llm, "qwen3", name, llm_layout(dims.llm, SEED, fast=True))
    _write_vae(staged.vae)
    files = {p.name: p.stat().st_size for p in (staged.diffusion, staged.llm, staged.vae)}
    (staging / STAMP).write_text(json.dumps({"spec": spec, "files": files}, indent=2), "utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    os.rename(staging, folder)
    seconds = time.monotonic() - started
    print(f"klein-{shape}: {sum(files.values()) / 1e9:.2f} GB in {seconds:.0f} s", file=sys.stderr)
    return paths


def _write_vae(path: Path) -> None:
    import numpy as np
    from safetensors.numpy import save_file

    tensors = {
        name: np.ascontiguousarray(a, dtype=np.float16)
        for name, a in vae_tensors(SEED, VAE_CHANNELS, VAE_CHANNELS)
    }
    save_file(tensors, str(path), metadata={"format": "pt"})
    path.chmod(0o644)  # safetensors writes 0600; the set is shared data, not a secret


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--shape", choices=[*SHAPES, "all"], default="all")
    parser.add_argument("--force", action="store_true", help="write the set again")
    args = parser.parse_args(argv)
    for shape in SHAPES if args.shape == "all" else [args.shape]:
        paths = make(args.out_dir, shape, args.force)
        for name, path in asdict(paths).items():
            print(f"{shape} {name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
