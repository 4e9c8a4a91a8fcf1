"""Importing the user's sd-cli template (notes §3.3): Windows paths, ^ continuations, notes."""

from __future__ import annotations

from app.pipeline.sdcli_import import import_sd_cli_command, split_command
from app.pipeline.spec import spec_from_dict

TEMPLATE = r"""sd-cli.exe ^
  --diffusion-model D:\files\FLUX.2\flux-2-klein-9b-Q4_0.gguf ^
  --vae D:\files\FLUX.2\flux2-vae.safetensors ^
  --llm D:\files\FLUX.2\flux2-klein-9b-uncensored-q4_k_m.gguf ^
  --lora-model-dir D:\files\FLUX.2\loras ^
  -p "<lora:Flux_Klein_NSFW_v2:1.0>露出胸部" ^
  --guidance 3.5 --steps 10 --sampling-method euler ^
  -i input.png --mask mask.png ^
  -W 352 -H 864 ^
  --output out.png --seed 42 ^
  --diffusion-fa --vae-tiling ^
  --backend te=cpu,diffusion=vulkan1,vae=vulkan1 ^
  --params-backend cpu --mmap --max-vram 6
"""


def _note(notes: list[str], flag: str) -> str:
    hits = [n for n in notes if flag in n]
    assert hits, f"no note about {flag}: {notes}"
    return hits[0]


def test_users_template_imports() -> None:
    spec, notes = import_sd_cli_command(TEMPLATE)
    assert spec["models"] == {
        "diffusion": r"D:\files\FLUX.2\flux-2-klein-9b-Q4_0.gguf",
        "llm": r"D:\files\FLUX.2\flux2-klein-9b-uncensored-q4_k_m.gguf",
        "vae": r"D:\files\FLUX.2\flux2-vae.safetensors",
        "lora_dir": r"D:\files\FLUX.2\loras",
    }
    assert spec["prompt"] == "<lora:Flux_Klein_NSFW_v2:1.0>露出胸部"
    assert spec["image"] == "input.png" and spec["mask"] == "mask.png"
    assert (spec["width"], spec["height"], spec["steps"], spec["seed"]) == (352, 864, 10, 42)
    assert spec["sampler"] == "euler"
    assert spec["devices"]["llm"] == "cpu"
    assert spec["devices"]["diffusion"] == "vulkan1"
    assert spec["devices"]["vae"] == "vulkan1"
    assert spec["devices"]["flash_attention"] and spec["devices"]["vae_tiling"]
    assert spec["devices"]["mmap"]
    # klein's settings, not sd-cli's defaults
    assert spec["cfg_scale"] == 1.0 and spec["scheduler"] == "simple"
    job = spec_from_dict(spec)
    assert job.steps == 10

    assert "nothing" in _note(notes, "--guidance")
    assert "twice" in _note(notes, "--cfg-scale")
    _note(notes, "--backend")
    _note(notes, "--params-backend")
    _note(notes, "--max-vram")
    _note(notes, "--lora-model-dir")
    _note(notes, "--output")
    _note(notes, "10 steps")


def test_split_handles_quotes_and_continuations() -> None:
    assert split_command('a "b c" d') == ["a", "b c", "d"]
    assert split_command("a \\\n  b `\n c ^\n d") == ["a", "b", "c", "d"]
    assert split_command(r'-p "say \"hi\"" C:\x\y') == ["-p", 'say "hi"', r"C:\x\y"]
    assert split_command("-p 'single quoted'") == ["-p", "single quoted"]


def test_cfg_given_is_kept_and_warned() -> None:
    spec, notes = import_sd_cli_command("sd --cfg-scale 4.5 -p x --scheduler discrete")
    assert spec["cfg_scale"] == 4.5 and spec["scheduler"] == "discrete"
    assert any("twice per step" in n for n in notes)
    assert any("discrete" in n for n in notes)


def test_unknown_flags_are_noted_not_fatal() -> None:
    spec, notes = import_sd_cli_command("sd-cli --frobnicate 3 -p cat --clip-on-cpu --seed -1")
    assert spec["prompt"] == "cat"
    assert spec["devices"]["llm"] == "cpu"
    assert any("--frobnicate" in n for n in notes)
    assert any("random seed" in n for n in notes)


def test_equals_form_and_refs() -> None:
    spec, _ = import_sd_cli_command("sd --steps=6 -r a.png -r b.png --prompt=hello")
    assert spec["steps"] == 6 and spec["refs"] == ["a.png", "b.png"]
    assert spec["prompt"] == "hello"
