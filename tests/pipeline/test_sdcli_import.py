"""Importing the user's sd-cli template (notes §3.3): Windows paths, ^ continuations, notes."""

from __future__ import annotations

from app.pipeline.failures import Note, NoteCode
from app.pipeline.job.advice import job_notes
from app.pipeline.job.params import PARAMS, default_values
from app.pipeline.job.sdcli_import import (
    SDCLI_FLAGS,
    import_sd_cli,
    import_sd_cli_command,
    split_command,
)
from app.pipeline.job.spec import spec_from_dict

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


def _note(notes: list[Note], code: NoteCode, **params: object) -> Note:
    hits = [
        n for n in notes if n.code == code and all(n.params.get(k) == v for k, v in params.items())
    ]
    assert hits, f"no note {code} {params}: {notes}"
    return hits[0]


def test_users_template_imports() -> None:
    job = import_sd_cli(TEMPLATE)
    v = job.values
    assert (v["diffusion_model"], v["llm_model"], v["vae_model"], v["lora_dir"]) == (
        r"D:\files\FLUX.2\flux-2-klein-9b-Q4_0.gguf",
        r"D:\files\FLUX.2\flux2-klein-9b-uncensored-q4_k_m.gguf",
        r"D:\files\FLUX.2\flux2-vae.safetensors",
        r"D:\files\FLUX.2\loras",
    )
    assert v["prompt"] == "<lora:Flux_Klein_NSFW_v2:1.0>露出胸部"
    assert job.image == "input.png" and job.mask == "mask.png"
    assert (v["width"], v["height"], v["steps"], v["seed"]) == (352, 864, 10, 42)
    assert v["sampler"] == "euler"
    assert (v["llm_device"], v["diffusion_device"], v["vae_device"]) == (
        "cpu",
        "vulkan1",
        "vulkan1",
    )
    assert v["flash_attention"] and v["vae_tiling"] and v["mmap"]
    # klein's settings, not sd-cli's defaults
    assert v["cfg_scale"] == 1.0 and v["scheduler"] == "simple"
    spec = job.spec()
    assert spec.steps == 10 and spec.image == "input.png" and spec.devices.diffusion == "vulkan1"

    notes = job.notes
    _note(notes, NoteCode.FLAG_NO_EFFECT, flag="--guidance", value="3.5")
    _note(notes, NoteCode.SDCLI_DEFAULT_CFG, cfg=7.0)
    _note(
        notes,
        NoteCode.FLAG_MAPPED,
        flag="--backend",
        value="diffusion=vulkan1",
        target="diffusion_device",
    )
    _note(notes, NoteCode.FLAG_NOT_NEEDED, flag="--params-backend", value="cpu")
    _note(notes, NoteCode.FLAG_NOT_NEEDED, flag="--max-vram", value="6")
    _note(notes, NoteCode.LORA_FROM_TAGS, loras="Flux_Klein_NSFW_v2 at 1.0")
    _note(notes, NoteCode.OUTPUT_IN_RUN_FOLDER, value="out.png")
    _note(notes, NoteCode.SIZE_FROM_IMAGE)
    _note(job_notes(spec, frozenset({"euler"})), NoteCode.MANY_STEPS, steps=10)


def test_every_sdcli_flag_of_the_table_is_imported() -> None:
    assert set(SDCLI_FLAGS) == {f for p in PARAMS for f in p.sdcli_flags}
    for flag, p in SDCLI_FLAGS.items():
        if p.kind is bool:
            job = import_sd_cli(f"sd {flag}")
            assert job.values[p.name] is True, flag
            continue
        value = {int: "3", float: "0.5", str: "cpu"}[p.kind]
        if p.choices:
            value = str(next(c for c in p.choices if c != p.default))
        job = import_sd_cli(f"sd {flag} {value}")
        assert job.values[p.name] == p.kind(value) and p.name in job.given, flag


def test_nothing_given_is_the_tables_defaults_but_sdcli_flash_attention_and_mask() -> None:
    job = import_sd_cli("sd-cli -p x")
    # sd-cli runs without flash attention and with a hard mask: an imported command keeps both.
    expected = {**default_values(), "prompt": "x", "flash_attention": False, "mask_mode": "hard"}
    assert job.values == expected
    _note(job.notes, NoteCode.MODEL_NOT_GIVEN, flag="--diffusion-model")


def test_split_handles_quotes_and_continuations() -> None:
    assert split_command('a "b c" d') == ["a", "b c", "d"]
    assert split_command("a \\\n  b `\n c ^\n d") == ["a", "b", "c", "d"]
    assert split_command(r'-p "say \"hi\"" C:\x\y') == ["-p", 'say "hi"', r"C:\x\y"]
    assert split_command("-p 'single quoted'") == ["-p", "single quoted"]


def test_cfg_given_is_kept_and_warned() -> None:
    job = import_sd_cli("sd --cfg-scale 4.5 -p x --scheduler discrete")
    assert job.values["cfg_scale"] == 4.5 and job.values["scheduler"] == "discrete"
    assert not [n for n in job.notes if n.code == NoteCode.SDCLI_DEFAULT_CFG]
    notes = job_notes(job.spec(), frozenset({"euler"}))
    _note(notes, NoteCode.CFG_NOT_ONE, cfg=4.5)
    _note(notes, NoteCode.SCHEDULER_NOT_SIMPLE, scheduler="discrete")


def test_unknown_flags_are_noted_not_fatal() -> None:
    job = import_sd_cli("sd-cli --frobnicate 3 -p cat --clip-on-cpu --seed -1 --steps x")
    assert job.values["prompt"] == "cat"
    assert job.values["llm_device"] == "cpu"
    assert job.values["seed"] == -1 and job.values["steps"] == 4
    _note(job.notes, NoteCode.FLAG_UNKNOWN, flag="--frobnicate", value="3")
    _note(job.notes, NoteCode.SEED_RANDOM, value=-1)
    _note(job.notes, NoteCode.FLAG_BAD_NUMBER, flag="--steps", value="x")
    _note(job.notes, NoteCode.FLAG_MAPPED, flag="--clip-on-cpu", target="llm_device")


def test_equals_form_and_refs() -> None:
    job = import_sd_cli("sd --steps=6 -r a.png -r b.png --prompt=hello")
    assert job.values["steps"] == 6 and job.refs == ["a.png", "b.png"]
    assert job.values["prompt"] == "hello"


def test_the_old_dict_form_still_reads() -> None:
    spec, notes = import_sd_cli_command(TEMPLATE)
    assert spec_from_dict(spec).steps == 10
    assert any(line.startswith("flag_no_effect") for line in notes)


def test_a_square_size_in_sdclis_spelling() -> None:
    assert import_sd_cli("sd --vae-tile-size 16x16").values["vae_tile_size"] == 16
    job = import_sd_cli("sd --vae-tile-size 16x32")
    assert job.values["vae_tile_size"] == 32
    _note(job.notes, NoteCode.FLAG_BAD_NUMBER, flag="--vae-tile-size", value="16x32")
