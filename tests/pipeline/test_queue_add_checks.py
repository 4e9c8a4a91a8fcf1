"""`queue add` refuses what `run` refuses (issue 29, defects 3, 4 and 11): the run's preflight
(run/inputs.check_new_job: the values, the engine's limits, the models, the pictures and the
frame against the picture) runs at add time, once per distinct job, and a value that would be
silently ignored is refused by run and queue alike."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PIL import Image

from app.cli.parser import build_parser
from app.cli.run_flags import values_from_args
from app.core.errors import InputError, StepwiseError
from app.core.paths import app_paths
from app.imaging.prepare_record import PrepareOptions
from app.pipeline.job import preflight
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue.jobs import JobQueue
from app.pipeline.run import inputs
from app.pipeline.run.inputs import check_new_job, check_new_jobs
from tests.cli.conftest import run_cli


def _picture(path: Path, size: tuple[int, int] = (64, 48)) -> str:
    Image.new("RGB", size, (120, 60, 30)).save(path)
    return str(path)


@pytest.fixture()
def models(tiny_models) -> ModelFiles:
    return ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))


def _refused(spec: JobSpec, match: str) -> None:
    """Refused by the run's preflight and by what `queue add` (CLI and GUI) calls before it
    adds, with the same message."""
    with pytest.raises(InputError, match=match):
        check_new_job(spec)
    with pytest.raises(InputError, match=match):
        check_new_jobs([spec, dataclasses.replace(spec, seed=spec.seed + 1)])


def test_the_photo_counts_among_the_references(models: ModelFiles, tmp_path: Path) -> None:
    """Defect 3: 16 -r pictures and --source-ref are 17 references; the fix says how."""
    photo = _picture(tmp_path / "photo.png")
    refs = tuple(_picture(tmp_path / f"r{n}.png") for n in range(preflight.MAX_REFERENCE_IMAGES))
    spec = JobSpec(models=models, prompt="a cat", image=photo, refs=refs, source_ref=True)
    _refused(spec, "17 reference images")
    try:
        check_new_job(spec)
    except InputError as exc:
        assert exc.values["extra"] == 1 and "--source-ref" in exc.user_message()
    check_new_job(JobSpec(models=models, prompt="a cat", image=photo, refs=refs))  # 16: fine


def test_a_context_outside_the_photo_is_refused_at_add(models: ModelFiles, tmp_path: Path) -> None:
    """Defect 4: the worker found it at night."""
    photo, mask = _picture(tmp_path / "photo.png"), tmp_path / "mask.png"
    Image.new("L", (64, 48), 255).save(mask)
    prepare = PrepareOptions(only_masked=True, context="0,0,500,500")
    spec = JobSpec(models=models, prompt="a cat", image=photo, mask=str(mask), prepare=prepare)
    _refused(spec, "context")


def test_an_expansion_past_the_largest_picture_is_refused_at_add(
    models: ModelFiles, tmp_path: Path
) -> None:
    spec = JobSpec(
        models=models,
        prompt="a cat",
        image=_picture(tmp_path / "photo.png"),
        prepare=PrepareOptions(expand="0,0,4100,0"),
    )
    _refused(spec, "4096|larger|too large")


def test_a_context_needs_only_masked_and_a_photo(models: ModelFiles, tmp_path: Path) -> None:
    """Defect 11: --context without --only-masked, or with no image, was silently ignored."""
    photo, mask = _picture(tmp_path / "photo.png"), tmp_path / "mask.png"
    Image.new("L", (64, 48), 255).save(mask)
    context = PrepareOptions(context="0,0,16,16")
    spec = JobSpec(models=models, prompt="a cat", image=photo, mask=str(mask), prepare=context)
    _refused(spec, "only-masked")
    _refused(JobSpec(models=models, prompt="a cat", prepare=context), "needs a picture")


def test_the_source_reference_needs_a_photo(models: ModelFiles) -> None:
    """Defect 11: --source-ref (and --preset remove, which sets it) with no image."""
    _refused(JobSpec(models=models, prompt="a cat", source_ref=True), "needs a picture")


def test_a_presets_slot_left_in_the_prompt_is_refused(models: ModelFiles, tmp_path: Path) -> None:
    """Defect 11: the GUI ran the literal "[describe the object]"."""
    spec = JobSpec(
        models=models,
        prompt="a [describe the object] on the table",
        image=_picture(tmp_path / "photo.png"),
    )
    _refused(spec, r"\[describe the object\]")


def test_an_empty_prompt_with_a_preset_that_needs_words_is_refused() -> None:
    args = build_parser().parse_args(
        ["queue", "add", "--diffusion-model", "d", "--llm", "l", "--vae", "v"]
        + ["--preset", "add", "-p", ""]
    )
    with pytest.raises(StepwiseError, match="needs words"):
        values_from_args(args, None)


def test_queue_add_refuses_a_context_outside_the_photo(tiny_models, tmp_path: Path) -> None:
    """Defect 4 end to end: `queue add` says it now and queues nothing."""
    photo, mask = _picture(tmp_path / "photo.png"), tmp_path / "mask.png"
    Image.new("L", (64, 48), 255).save(mask)
    done = run_cli(
        "queue", "add", "-p", "a cat", "-i", photo, "--mask", mask, "--only-masked",
        "--context", "0,0,500,500", "--diffusion-model", tiny_models.diffusion,
        "--llm", tiny_models.llm, "--vae", tiny_models.vae, "--engine", tmp_path / "no-engine",
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "context" in done.stderr and "added" not in done.stdout
    assert JobQueue(app_paths()).read().jobs == ()


def test_the_pictures_are_checked_once_per_add(
    models: ModelFiles, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty seeds of one job: the picture-dependent checks run once, not twenty times."""
    seen: list[JobSpec] = []
    real = inputs._check_pictures
    monkeypatch.setattr(inputs, "_check_pictures", lambda spec: (seen.append(spec), real(spec)))
    photo = _picture(tmp_path / "photo.png")
    specs = [JobSpec(models=models, prompt="a cat", image=photo, seed=n) for n in range(20)]
    check_new_jobs(specs)
    assert len(seen) == 1
    assert len(JobQueue(app_paths()).add(specs)) == 20
