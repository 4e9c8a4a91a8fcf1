"""What the UI needs of execute/ — the memory plan and the background preview decoder — it asks
of PipelineAPI (`plan`, `preview_decoder`), so the test fake stands in for both: no engine is
run here and the model files are stand-ins (issue 39)."""

from __future__ import annotations

from pathlib import Path

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.memory_plan import MemoryPlan, session_plan_fn
from app.jobs.preview_follow import DecodedPreviews
from app.jobs.run_session import RunSession
from app.pipeline.job.params import DECODED_PREVIEWS, DIFFUSION_MODEL, LLM_MODEL, PROMPT, VAE_MODEL
from tests.fakes.fake_pipeline import FakePipeline, _FakeDecoder


def _model(tmp_path: Path, fake: FakePipeline) -> GenerationModel:
    form = JobForm()
    for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL):
        f = tmp_path / f"{p.name}.gguf"
        f.write_bytes(b"not a model")
        form.set(p, str(f))
    form.set(PROMPT, "a blue door")
    return GenerationModel(form, RunSession(app_paths(), pipeline=fake))


def test_the_memory_plan_is_the_pipelines(qtbot, tmp_path: Path) -> None:
    model = _model(tmp_path, FakePipeline(tmp_path / "runs"))
    plan = MemoryPlan(model, session_plan_fn(model))
    with qtbot.waitSignal(plan.planned, timeout=30_000) as got:
        plan.refresh()
    assert list(got.args[0].fits) == ["llm-encode", "diffuse", "vae-decode"]
    assert plan.wait()
    plan.stop()


def test_the_background_decoder_is_the_pipelines(qtbot, tmp_path: Path) -> None:
    fake = FakePipeline(tmp_path / "runs", step_s=0.05)
    model = _model(tmp_path, fake)
    model.form.set(DECODED_PREVIEWS, "on")
    previews = DecodedPreviews(model)
    seen: list[_FakeDecoder] = []
    model.runner_started.connect(
        lambda *_: seen.append(previews.current.decoder) if previews.current else None
    )
    with qtbot.waitSignal(model.runner_ended, timeout=30_000):
        model.run_all()
    (decoder,) = seen
    assert isinstance(decoder, _FakeDecoder) and decoder.started and decoder.stopped
    assert previews.current is None
