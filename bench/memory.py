"""Memory plan accuracy: `sd-stage --plan` against what the real run allocates.

    python bench/memory.py [--sd-stage PATH] [--shape tiny|4b|9b | --dit F --llm F --vae F]
                           [--sizes 352x864,512x768,...] [--vram-gib 8 --cap-gib 2] [-t N]

For each stage and size (352x864, 512x768, 768x1024, 1024x1024 by default), with and without
flash attention (diffuse) and VAE tiling (vae-decode, vae-encode), prints the planned compute
buffer, the one the real run logs ("<runner> compute buffer size: X MB", printed before the
first step: the run is stopped right after it) and their ratio, plus the plan's weights, largest
tensor, largest allocation and total, and whether the stage fits a card of --vram-gib with a
single-allocation cap of --cap-gib (total <= VRAM and largest tensor <= cap; ggml splits every
buffer into chunks of at most min(1 GiB, cap), so the cap binds on single tensors only).

Models: the tiny random-weight klein set by default; `--shape 4b|9b` the random-weight sets of
the real shapes that scripts/make_shape_models.py writes into --models-dir (default
shape-models/ in the repository), or any files with --dit/--llm/--vae.
The diffuse rows use a zero conditioning of --tokens tokens (the plan and the run alike); the
decode rows a zero latent; the encode rows a noise image. Weights are real-sized: a 9B run
loads 5 GB per row (minutes on a CPU).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.engine.argv import (  # noqa: E402
    CommonArgs,
    DiffuseArgs,
    LlmEncodeArgs,
    VaeDecodeArgs,
    VaeEncodeArgs,
)
from app.engine.locate import EngineNotFound, build_engine, find_sd_stage  # noqa: E402
from app.engine.tensorfile import write_tensors  # noqa: E402
from tests.engine.memory_probe import measure, plan, planned_first_compute  # noqa: E402

SIZES = [(352, 864), (512, 768), (768, 1024), (1024, 1024)]
MIB = 1024 * 1024
GIB = 1024 * MIB


def _engine(explicit: Path | None) -> Path:
    try:
        return find_sd_stage(explicit)
    except EngineNotFound:
        print("sd-stage not built yet: running native/build.py …", file=sys.stderr)
        return build_engine(on_line=lambda line: print(line, file=sys.stderr))


def _models(args: argparse.Namespace, scratch: Path):
    from app.engine import tiny_models

    if args.dit or args.llm or args.vae:
        if not (args.dit and args.llm and args.vae):
            raise SystemExit("give all of --dit, --llm and --vae")
        return tiny_models.ModelSet(args.dit, args.llm, args.vae)
    if args.shape == "tiny":
        return tiny_models.generate_models(args.models_dir or scratch / "models")
    # made by scripts/make_shape_models.py OUT_DIR --shape 4b|9b (never committed)
    folder = (args.models_dir or REPO / "shape-models") / f"klein-{args.shape}"
    models = tiny_models.ModelSet(
        folder / f"klein-{args.shape}-dit-q4_0.gguf",
        folder / f"klein-{args.shape}-qwen3-q4_k_m.gguf",
        folder / f"klein-{args.shape}-vae-f16.safetensors",
    )
    if not (folder / "models.json").is_file():
        raise SystemExit(
            f"--shape {args.shape}: no model set in {folder}; make it with "
            f"`python scripts/make_shape_models.py {folder.parent} --shape {args.shape}` "
            "or pass --dit/--llm/--vae"
        )
    return models


def _mib(n: int | None) -> str:
    return "-" if n is None else f"{n / MIB:,.1f}"


def _row(name: str, size: str, switches: str, report: dict, real: dict, fits: str) -> str:
    planned = planned_first_compute(report)
    runner = next(iter(planned), None)
    p = planned.get(runner) if runner else None
    m = real.get(runner) if runner else None
    ratio = f"{p / m:.3f}" if p and m else "-"
    dev = report["devices"][0]
    return (
        f"| {name} | {size} | {switches} | {_mib(p)} | {_mib(m)} | {ratio} | "
        f"{_mib(dev['weights_bytes'])} | {_mib(dev['largest_tensor_bytes'])} | "
        f"{_mib(dev['largest_alloc_bytes'])} | {_mib(dev['total_bytes'])} | {fits} |"
    )


def _fits(report: dict, vram: int, cap: int) -> str:
    dev = report["devices"][0]
    reasons = []
    if dev["total_bytes"] > vram:
        reasons.append("total")
    if dev["largest_tensor_bytes"] > cap:
        reasons.append("tensor>cap")
    return "yes" if not reasons else "no (" + ", ".join(reasons) + ")"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sd-stage", type=Path)
    parser.add_argument("--shape", choices=["tiny", "4b", "9b"], default="tiny")
    parser.add_argument("--dit", type=Path)
    parser.add_argument("--llm", type=Path)
    parser.add_argument("--vae", type=Path)
    parser.add_argument("--models-dir", type=Path, help="tiny: cache folder; 4b/9b: OUT_DIR")
    parser.add_argument("--sizes", help="comma-separated WxH list")
    parser.add_argument("--stages", default="diffuse,vae-decode,vae-encode,llm-encode")
    parser.add_argument("--tokens", type=int, default=64, help="conditioning length for diffuse")
    parser.add_argument("--vram-gib", type=float, default=8.0)
    parser.add_argument("--cap-gib", type=float, default=2.0)
    parser.add_argument("--plan-only", action="store_true", help="skip the real runs")
    parser.add_argument("-t", "--threads", type=int, default=1)
    args = parser.parse_args(argv)

    sizes = SIZES
    if args.sizes:
        sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]  # type: ignore[misc]
    stages = args.stages.split(",")
    engine = _engine(args.sd_stage)
    vram, cap = int(args.vram_gib * GIB), int(args.cap_gib * GIB)
    with tempfile.TemporaryDirectory(prefix="stepwise-bench-memory-") as tmp:
        scratch = Path(tmp)
        models = _models(args, scratch)
        print(f"engine: {engine}\nmodels: {models}\n")
        print(
            "| stage | size | switches | planned compute MiB | measured MiB | ratio | weights MiB "
            f"| largest tensor MiB | largest alloc MiB | total MiB | fits {args.vram_gib:g} GiB, "
            f"cap {args.cap_gib:g} GiB |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")

        def bench(name: str, size: str, switches: str, stage_argv: list[str], runner: str) -> None:
            report, _ = plan(engine, stage_argv)
            real: dict = {}
            if not args.plan_only:
                # the compute line comes before the first step: stop the run right after it
                stop = next(iter(planned_first_compute(report)), runner)
                real = measure(engine, stage_argv, stop_after=stop).compute
            print(_row(name, size, switches, report, real, _fits(report, vram, cap)), flush=True)

        common = {"threads": args.threads}
        cond = scratch / "cond.bin"
        for w, h in sizes:
            size = f"{w}x{h}"
            if "diffuse" in stages:
                if not cond.exists():
                    probe = DiffuseArgs(
                        models.diffusion, scratch / "none.bin", w, h, 1, 1, scratch / "f.bin",
                        scratch / "ck",
                    )  # fmt: skip
                    report, _ = plan(engine, probe.to_argv())
                    zeros = np.zeros((1, args.tokens, report["context_dim"]), np.float32)
                    write_tensors(cond, {"c_crossattn": zeros})
                for fa in (False, True):
                    d = DiffuseArgs(
                        models.diffusion, cond, w, h, 4, 1, scratch / "f.bin", scratch / "ck",
                        common=CommonArgs(flash_attention=fa, **common),
                    )  # fmt: skip
                    bench("diffuse", size, "FA" if fa else "-", d.to_argv(), "flux")
            if "vae-decode" in stages:
                latent = scratch / f"latent-{size}.bin"
                write_tensors(latent, {"latent": np.zeros((1, 128, h // 16, w // 16), np.float32)})
                for tiled in (False, True):
                    v = VaeDecodeArgs(
                        models.vae, latent, scratch / "o.png",
                        common=CommonArgs(vae_tiling=tiled, **common),
                    )  # fmt: skip
                    bench("vae-decode", size, "tiled" if tiled else "-", v.to_argv(), "vae")
            if "vae-encode" in stages:
                from PIL import Image

                image = scratch / f"in-{size}.png"
                noise = np.random.default_rng(1).integers(0, 256, (h, w, 3), np.uint8)
                Image.fromarray(noise).save(image)
                for tiled in (False, True):
                    e = VaeEncodeArgs(
                        models.vae, w, h, init_image=image, save_latent=scratch / "i.bin",
                        common=CommonArgs(vae_tiling=tiled, **common),
                    )  # fmt: skip
                    bench("vae-encode", size, "tiled" if tiled else "-", e.to_argv(), "vae")
        if "llm-encode" in stages:
            for words in (8, 60, 300):
                prompt = " ".join(["fox"] * words)
                llm = LlmEncodeArgs(
                    models.llm, prompt, scratch / "c.bin", common=CommonArgs(**common)
                )
                bench("llm-encode", f"{words} words", "-", llm.to_argv(), "qwen3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
