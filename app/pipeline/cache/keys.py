"""Stage keys: what each stage's output depends on, so that a change reruns exactly the stages
downstream of it (like a build system). Each key hashes the stage's own inputs plus the keys of
the stages it reads from; two runs with equal keys for a stage have equal outputs."""

from __future__ import annotations

import dataclasses
from typing import Any

from app.engine.stage import Stage
from app.imaging.prepare import PrepareOptions
from app.pipeline.cache.store import cache_key
from app.pipeline.job.identity import identity_key
from app.pipeline.job.params import PARAMS
from app.pipeline.job.spec import JobSpec, values_from_spec

# Bump when the pipeline changes what a stage writes for the same inputs.
KEYS_VERSION = 1
# Parameters each payload below names itself, each with its rule (model files by content, the
# LoRA folder through the files the prompt's tags find, the negative prompt only when guided,
# the size only without an image). Any other row of the table whose `invalidates` names a
# stage joins that stage's key on its own (under "params"): a new parameter needs no edit here.
EXPLICIT = frozenset({
    "diffusion_model", "llm_model", "vae_model", "lora_dir", "prompt", "negative_prompt",
    "width", "height", "steps", "seed", "strength", "cfg_scale", "sampler", "scheduler",
    "align", "fill", "only_masked", "padding", "feather", "source_ref", "context", "expand",
})  # fmt: skip
# PrepareOptions fields that only the composite reads, at their defaults (left out of prepare).
COMPOSITE_ONLY = {
    p.spec_field.partition(".")[2]: p.default
    for p in PARAMS
    if p.invalidates == Stage.COMPOSITE and p.spec_field.startswith("prepare.")
}
# Prepare options added after runs were keyed: left out of the key while empty, so the runs
# made before them keep their keys (and resume without preparing again).
_NEW_PREPARE_FIELDS = ("context", "expand")


def stage_keys(
    spec: JobSpec,
    inputs: dict[str, Any],
    models: dict[str, Any],
    engine_version: str,
    loras: list[dict[str, Any]] | None = None,
) -> dict[str, str | None]:
    """Key per stage; None for a stage this job skips (vae-encode without images).

    `inputs`: run.json's inputs section (sha256 of the copied image, mask, refs);
    `models`: model identities (identity.model_identity); `loras`: lora_identities().
    """
    loras = loras or []
    image = inputs.get("image")
    mask = inputs.get("mask")
    refs = inputs.get("refs") or []
    prepare_opts = _prepare_dict(spec)
    keys: dict[str, str | None] = {}
    table = values_from_spec(spec)
    keys[Stage.PREPARE] = cache_key(
        Stage.PREPARE,
        {
            **_table_part(table, Stage.PREPARE),
            "v": KEYS_VERSION,
            "image": image["sha256"] if image else None,
            "mask": mask["sha256"] if mask else None,
            "refs": [r["sha256"] for r in refs],
            "options": prepare_opts,
            "size": None if image else [spec.width, spec.height],
            # Named only when it acts (an image to take it from), so the keys of jobs
            # without it are what they were before the option existed (their caches hit).
            **({"source_ref": True} if spec.uses_source_ref else {}),
        },
    )
    has_latents = image is not None or bool(refs)
    keys[Stage.VAE_ENCODE] = (
        cache_key(
            Stage.VAE_ENCODE,
            {
                **_table_part(table, Stage.VAE_ENCODE),
                "v": KEYS_VERSION,
                "vae": identity_key(models.get("vae")),
                "prepare": keys[Stage.PREPARE],
                "engine": engine_version,
            },
        )
        if has_latents
        else None
    )
    # The negative prompt is encoded only when cfg != 1 (and then the conditioning does not
    # depend on the cfg value itself): editing it at cfg 1 costs no LLM run.
    guided = spec.guided
    keys[Stage.LLM_ENCODE] = cache_key(
        Stage.LLM_ENCODE,
        {
            **_table_part(table, Stage.LLM_ENCODE),
            "v": KEYS_VERSION,
            "llm": identity_key(models.get("llm")),
            "prompt": spec.prompt,
            "negative": spec.negative_prompt if guided else None,
            "guided": guided,
            "loras": loras,
            "engine": engine_version,
        },
    )
    keys[Stage.DIFFUSE] = cache_key(
        Stage.DIFFUSE,
        {
            **_table_part(table, Stage.DIFFUSE),
            "v": KEYS_VERSION,
            "diffusion": identity_key(models.get("diffusion")),
            "conditioning": keys[Stage.LLM_ENCODE],
            "latents": keys[Stage.VAE_ENCODE],
            "prepare": keys[Stage.PREPARE],
            "steps": spec.steps,
            "seed": spec.seed,
            "strength": float(spec.strength),
            "cfg": float(spec.cfg_scale),
            "sampler": spec.sampler,
            "scheduler": spec.scheduler,
            "loras": loras,
            "engine": engine_version,
            "size": None if image else [spec.width, spec.height],
        },
    )
    keys[Stage.VAE_DECODE] = cache_key(
        Stage.VAE_DECODE,
        {
            **_table_part(table, Stage.VAE_DECODE),
            "v": KEYS_VERSION,
            "vae": identity_key(models.get("vae")),
            "latent": keys[Stage.DIFFUSE],
            "engine": engine_version,
        },
    )
    keys[Stage.COMPOSITE] = cache_key(
        Stage.COMPOSITE,
        {
            **_table_part(table, Stage.COMPOSITE),
            "v": KEYS_VERSION,
            "decoded": keys[Stage.VAE_DECODE],
            "prepare": keys[Stage.PREPARE],
        },
    )
    return keys


# Rows that joined their stage's key at every value before the rule below (keys made then
# stay as they were, so a suspended run keeps its checkpoints). Never add to this set.
KEYED_AT_DEFAULT = frozenset({"masked_target"})


def _table_part(values: dict[str, Any], stage: str) -> dict[str, Any]:
    """{"params": {...}} for the table's rows keyed by `stage` not in EXPLICIT, each only when
    its value is not the row's default (a row at its default changes no output: adding a row
    changes no existing key); {} when there are none."""
    own = {
        p.name: values[p.name]
        for p in PARAMS
        if p.invalidates == stage
        and p.name not in EXPLICIT
        and (values[p.name] != p.default or p.name in KEYED_AT_DEFAULT)
    }
    return {"params": own} if own else {}


def _prepare_dict(spec: JobSpec) -> Any:
    """The prepare options as keyed: None for imaging's defaults (a spec without options and
    one with the default options prepare the same). The composite-only options are left out:
    they join the composite's key through the table (and keys stay what they were before
    those options existed)."""
    from app.pipeline.job.spec import spec_to_dict

    if spec.prepare is None:
        return None
    keyed = dataclasses.replace(spec.prepare, **COMPOSITE_ONLY)
    if keyed == PrepareOptions():
        return None
    data = spec_to_dict(dataclasses.replace(spec, prepare=keyed))[Stage.PREPARE]
    options = {k: v for k, v in data.items() if k not in COMPOSITE_ONLY}
    for name in _NEW_PREPARE_FIELDS:
        if not options.get(name):
            options.pop(name, None)
    return options
