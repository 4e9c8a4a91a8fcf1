from __future__ import annotations

from pathlib import Path

import pytest

from app.engine.argv import (
    CommonArgs,
    DiffuseArgs,
    LlmEncodeArgs,
    Placement,
    VaeDecodeArgs,
    VaeEncodeArgs,
    build_argv,
)


def _pairs(argv: list[str]) -> dict[str, str]:
    return {argv[i]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("-")}


def test_every_stage_asks_for_jsonl_events() -> None:
    stages = [
        VaeEncodeArgs(Path("v"), 64, 64, init_image=Path("i.png"), save_latent=Path("l.bin")),
        LlmEncodeArgs(Path("l"), "a cat", Path("c.bin")),
        DiffuseArgs(Path("d"), Path("c.bin"), 64, 64, 4, 1, Path("f.bin"), Path("ck")),
        VaeDecodeArgs(Path("v"), Path("f.bin"), Path("o.png")),
    ]
    for args in stages:
        argv = build_argv(Path("/bin/sd-stage"), args)
        assert argv[0] == "/bin/sd-stage"
        assert _pairs(argv)["--stage"] == args.stage
        assert _pairs(argv)["--events"] == "jsonl"


def test_diffuse_flags() -> None:
    args = DiffuseArgs(
        Path("dit.gguf"),
        Path("c.bin"),
        352,
        864,
        6,
        42,
        Path("final.bin"),
        Path("ck"),
        scheduler="simple",
        strength=0.75,
        init_latent=Path("init.bin"),
        mask=Path("m.png"),
        ref_latents=Path("refs.bin"),
        resume_step=3,
        preview="proj",
        common=CommonArgs(
            threads=2,
            placement=Placement(te="cpu", diffusion="vulkan0"),
            params_backend="cpu",
            flash_attention=True,
            max_vram_gib=3.5,
        ),
    )
    argv = args.to_argv()
    p = _pairs(argv)
    assert p["--diffusion-model"] == "dit.gguf"
    assert p["--load-embeddings"] == "c.bin"
    assert (p["-W"], p["-H"], p["--steps"], p["--seed"]) == ("352", "864", "6", "42")
    assert p["--sampling-method"] == "euler"
    assert p["--scheduler"] == "simple"
    assert p["--cfg-scale"] == "1.0"
    assert p["--strength"] == "0.75"
    assert p["--load-latent"] == "init.bin"
    assert p["--mask"] == "m.png"
    assert p["--load-ref-latents"] == "refs.bin"
    assert p["--checkpoint-dir"] == "ck"
    assert p["--resume-step"] == "3"
    assert p["--preview"] == "proj"
    assert p["--save-latent"] == "final.bin"
    assert p["-t"] == "2"
    assert p["--backend"] == "te=cpu,diffusion=vulkan0"
    assert p["--params-backend"] == "cpu"
    assert p["--max-vram"] == "3.5"
    assert "--diffusion-fa" in argv
    assert "--mmap" not in argv


def test_vae_encode_with_refs_only() -> None:
    argv = VaeEncodeArgs(
        Path("v"), 64, 64, ref_images=(Path("a.png"), Path("b.png")), save_ref_latents=Path("r.bin")
    ).to_argv()
    assert argv.count("-r") == 2
    assert "-i" not in argv
    assert _pairs(argv)["--save-ref-latents"] == "r.bin"


def test_llm_encode_keeps_prompt_as_one_argument() -> None:
    argv = LlmEncodeArgs(
        Path("q.gguf"),
        'a cat; rm -rf / "quoted"',
        Path("c.bin"),
        negative_prompt="blurry",
        cfg_scale=3.5,
    ).to_argv()
    p = _pairs(argv)
    assert p["-p"] == 'a cat; rm -rf / "quoted"'
    assert p["-n"] == "blurry"
    assert p["--cfg-scale"] == "3.5"


@pytest.mark.parametrize(
    "make",
    [
        lambda: VaeEncodeArgs(Path("v"), 64, 64),
        lambda: VaeEncodeArgs(Path("v"), 64, 64, init_image=Path("i.png")),
        lambda: VaeEncodeArgs(Path("v"), 0, 64, init_image=Path("i"), save_latent=Path("l")),
        lambda: DiffuseArgs(Path("d"), Path("c"), 64, 64, 0, 1, Path("f"), Path("ck")),
        lambda: DiffuseArgs(
            Path("d"), Path("c"), 64, 64, 4, 1, Path("f"), Path("ck"), preview="vae"
        ),
        lambda: DiffuseArgs(
            Path("d"), Path("c"), 64, 64, 4, 1, Path("f"), Path("ck"), mask=Path("m.png")
        ),
        lambda: DiffuseArgs(
            Path("d"), Path("c"), 64, 64, 4, 1, Path("f"), Path("ck"), resume_step=5
        ),
    ],
)
def test_inconsistent_arguments_are_refused(make) -> None:
    with pytest.raises(ValueError):
        make().to_argv()
