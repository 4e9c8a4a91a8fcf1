"""The one job form on the tiny models (tests/conftest.py's `tiny_form` fixture; helpers that
get `tiny_models` as an argument call `tiny_job_form` directly): the three model files, one
engine thread and every stage on the CPU, whatever the form's own defaults become."""

from __future__ import annotations

from typing import Any

from app.jobs.job_form import JobForm
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    LLM_DEVICE,
    LLM_MODEL,
    PROMPT,
    STEPS,
    THREADS,
    VAE_DEVICE,
    VAE_MODEL,
)
from tests.models.generate import ModelSet


def tiny_job_form(
    models: ModelSet | None, prompt: str = "a blue door", steps: int = 4, **values: Any
) -> JobForm:
    """`values` by Param.name override the rest (seed, width, …); models None: no files."""
    form = JobForm()
    chosen: dict[str, Any] = {PROMPT.name: prompt, STEPS.name: steps, THREADS.name: 1}
    chosen |= {p.name: "cpu" for p in (LLM_DEVICE, DIFFUSION_DEVICE, VAE_DEVICE)}
    if models is not None:
        chosen |= {
            DIFFUSION_MODEL.name: str(models.diffusion),
            LLM_MODEL.name: str(models.llm),
            VAE_MODEL.name: str(models.vae),
        }
    refused = form.update({**chosen, **values})
    assert not refused, refused
    return form
