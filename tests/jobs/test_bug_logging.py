"""Every unexpected exception an action of the generation model turns into a BUG failure is
logged with its traceback in the log file (the banner says "the log file has the details"), and
the job form's save failures and replaced settings reach the log too. The pipeline is the
test fake; only the fault is injected."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.core.logs import setup_logging
from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.pipeline.failures import FailureKind
from app.pipeline.job.params import DIFFUSION_MODEL, LLM_MODEL, PROMPT, VAE_MODEL
from tests.fakes.fake_pipeline import FakePipeline


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    path = setup_logging(tmp_path / "logs")
    yield path
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_stepwise", False):
            root.removeHandler(handler)
            handler.close()


def _model(tmp_path: Path) -> GenerationModel:
    form = JobForm()
    for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL):
        f = tmp_path / f"{p.name}.gguf"
        f.write_bytes(b"x")
        form.set(p, str(f))
    form.set(PROMPT, "a blue door")
    session = RunSession(app_paths(), pipeline=FakePipeline(tmp_path / "runs"))
    return GenerationModel(form, session)


def _boom(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("injected fault 4711")


# action name -> (what is made to fail, how the action is started)
ACTIONS: dict[str, tuple[str, Callable[[GenerationModel], object]]] = {
    "_launch": ("create_run", lambda m: m.run_all()),
    "_execute": ("execute", lambda m: m.run_all()),
    "resume": ("execute", lambda m: m.resume()),
    "decode_step": ("decode_step", lambda m: m.decode_step(1)),
    "branch": ("branch", lambda m: m.branch(1, {})),
    "open_run": ("open_run", lambda m: m.open_run(Path("elsewhere"))),
}


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_a_bug_in_an_action_is_logged_with_its_traceback(
    qtbot, tmp_path: Path, log_file: Path, monkeypatch, action: str
) -> None:
    model = _model(tmp_path)
    failures: list = []
    model.failed.connect(failures.append)
    if action not in ("_launch", "open_run"):
        model.session.create_run(model.spec(None))  # a run to act on
    broken, start = ACTIONS[action]
    monkeypatch.setattr(model.session, broken, _boom)
    start(model)
    assert [f.kind for f in failures] == [FailureKind.BUG]
    assert "injected fault 4711" in failures[0].detail
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text
    assert "RuntimeError: injected fault 4711" in text
    assert "_boom" in text  # the frame that raised is in the trace
    model.shutdown()


def test_the_queue_and_the_other_catch_alls_log_a_bug_with_its_traceback(log_file: Path) -> None:
    """log_error (the queue model, the input writer, the memory plan): a bug with its trace, a
    StepwiseError the user can fix as one line without one."""
    from app.core.errors import InputError
    from app.jobs.run_state import log_error

    logger = logging.getLogger("app.jobs.queue_model")
    try:
        _boom()
    except RuntimeError as exc:
        log_error(logger, "a queue action failed", exc)
    log_error(logger, "adding to the queue failed", InputError("A mask needs an image to inpaint."))
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    assert "a queue action failed: injected fault 4711\nTraceback (most recent call last)" in text
    assert "adding to the queue failed: A mask needs an image to inpaint.\n" in text
    assert text.count("Traceback") == 1
