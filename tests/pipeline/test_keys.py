"""Invalidation: each change reruns exactly the stages downstream of what it changes."""

from __future__ import annotations

import dataclasses

from app.pipeline.cache.keys import stage_keys
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles

MODELS = {
    name: {"path": f"/m/{name}", "size": 10, "mtime": 1.0, "fingerprint": name * 4}
    for name in ("diffusion", "llm", "vae")
}
INPUTS = {
    "image": {"file": "inputs/image.png", "sha256": "i" * 64},
    "mask": {"file": "inputs/mask.png", "sha256": "m" * 64},
    "refs": [],
}
SPEC = JobSpec(
    models=ModelFiles("/m/diffusion", "/m/llm", "/m/vae"),
    prompt="a cat",
    image="x.png",
    mask="m.png",
)


def _changed(**changes) -> set[str]:
    base = stage_keys(SPEC, INPUTS, MODELS, "v1")
    inputs = changes.pop("inputs", INPUTS)
    models = changes.pop("models", MODELS)
    engine = changes.pop("engine", "v1")
    new = stage_keys(dataclasses.replace(SPEC, **changes), inputs, models, engine)
    return {stage for stage in base if base[stage] != new[stage]}


def test_same_inputs_same_keys() -> None:
    assert _changed() == set()


def test_new_prompt_reruns_llm_encode_and_after() -> None:
    assert _changed(prompt="a dog") == {"llm-encode", "diffuse", "vae-decode", "composite"}


def test_negative_prompt_matters_only_with_cfg() -> None:
    # cfg 1 (klein): the negative prompt is never encoded, so editing it reruns nothing.
    assert _changed(negative_prompt="blurry") == set()
    guided = dataclasses.replace(SPEC, cfg_scale=3.0)
    a = stage_keys(guided, INPUTS, MODELS, "v1")
    b = stage_keys(dataclasses.replace(guided, negative_prompt="blurry"), INPUTS, MODELS, "v1")
    assert a["llm-encode"] != b["llm-encode"]
    c = stage_keys(dataclasses.replace(guided, cfg_scale=4.0), INPUTS, MODELS, "v1")
    assert a["llm-encode"] == c["llm-encode"] and a["diffuse"] != c["diffuse"]


def test_new_mask_or_image_reruns_from_prepare() -> None:
    new_mask = {**INPUTS, "mask": {"file": "inputs/mask.png", "sha256": "n" * 64}}
    everything = {"prepare", "vae-encode", "diffuse", "vae-decode", "composite"}
    assert _changed(inputs=new_mask) == everything
    new_image = {**INPUTS, "image": {"file": "inputs/image.png", "sha256": "j" * 64}}
    assert _changed(inputs=new_image) == everything


def test_sampling_changes_rerun_from_diffuse() -> None:
    after = {"diffuse", "vae-decode", "composite"}
    assert _changed(steps=8) == after
    assert _changed(seed=1) == after
    assert _changed(strength=0.5) == after
    assert _changed(sampler="heun") == after


def test_cfg_changes_conditioning_and_diffusion() -> None:
    # cfg != 1 also encodes the negative prompt.
    assert _changed(cfg_scale=3.0) == {"llm-encode", "diffuse", "vae-decode", "composite"}


def test_devices_and_preview_change_nothing() -> None:
    assert _changed(devices=DeviceChoice(diffusion="vulkan0", threads=4)) == set()
    assert _changed(preview="none") == set()


def test_model_identity_is_content_not_path() -> None:
    moved = {**MODELS, "llm": {**MODELS["llm"], "path": "/elsewhere/llm", "mtime": 5.0}}
    assert _changed(models=moved) == set()
    other = {**MODELS, "vae": {**MODELS["vae"], "fingerprint": "z" * 20}}
    assert _changed(models=other) == {"vae-encode", "diffuse", "vae-decode", "composite"}


def test_new_engine_recomputes_engine_stages() -> None:
    assert _changed(engine="v2") == {
        "vae-encode",
        "llm-encode",
        "diffuse",
        "vae-decode",
        "composite",
    }


def test_txt2img_skips_vae_encode() -> None:
    spec = dataclasses.replace(SPEC, image=None, mask=None)
    keys = stage_keys(spec, {"image": None, "mask": None, "refs": []}, MODELS, "v1")
    assert keys["vae-encode"] is None
    wider = stage_keys(
        dataclasses.replace(spec, width=768),
        {"image": None, "mask": None, "refs": []},
        MODELS,
        "v1",
    )
    assert wider["llm-encode"] == keys["llm-encode"]
    assert wider["diffuse"] != keys["diffuse"]


def test_lora_files_are_part_of_the_keys(tmp_path) -> None:
    from app.pipeline.job.loras import lora_identities, prompt_loras

    (tmp_path / "style.safetensors").write_bytes(b"A" * 100)
    spec = dataclasses.replace(
        SPEC,
        prompt="<lora:style:0.8> a cat",
        models=dataclasses.replace(SPEC.models, lora_dir=str(tmp_path)),
    )
    loras = prompt_loras(spec.prompt, spec.models.lora_dir)
    assert [(lr.name, lr.weight, lr.path) for lr in loras] == [
        ("style", "0.8", tmp_path / "style.safetensors")
    ]
    before = stage_keys(spec, INPUTS, MODELS, "v1", lora_identities(loras))
    (tmp_path / "style.safetensors").write_bytes(b"B" * 100)
    after = stage_keys(spec, INPUTS, MODELS, "v1", lora_identities(loras))
    assert before["llm-encode"] != after["llm-encode"]
    assert before["vae-encode"] == after["vae-encode"]
    assert prompt_loras("<lora:missing:1>", str(tmp_path))[0].path is None
