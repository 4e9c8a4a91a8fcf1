"""The generation panel driving the real sd-stage with the tiny models, through its buttons:
stages one at a time, previews for every step, pause/resume, suspend/resume in a new runner,
a SIGKILLed engine recovered bit-exactly, and the prompt cache."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer

from app.core.paths import app_paths
from app.core.settings import Settings
from app.jobs.run_session import RunSession
from app.pipeline.commands import _selftest_images
from app.ui.generation_panel import GenerationPanel
from tests.jobs.guard import child_pids

pytestmark = pytest.mark.slow

ORDER = ["prepare", "vae-encode", "llm-encode", "diffuse", "vae-decode", "composite"]
RUN_TIMEOUT_MS = 180_000


@pytest.fixture
def make_panel(qtbot, tmp_path: Path, sd_stage: Path, tiny_models):
    """Panels over one shared AppPaths (so the stage cache is shared between them)."""
    image, mask = _selftest_images(tmp_path / "in")
    made: list[GenerationPanel] = []

    def make(prompt: str = "a blue door", steps: int = 4) -> GenerationPanel:
        settings = Settings()
        settings.models.diffusion_model = str(tiny_models.diffusion)
        settings.models.llm = str(tiny_models.llm)
        settings.models.vae = str(tiny_models.vae)
        settings.generation.prompt = prompt
        settings.generation.steps = steps
        settings.devices.diffusion = "cpu"
        settings.devices.vae = "cpu"
        settings.devices.llm = "cpu"
        session = RunSession(app_paths(), engine=sd_stage)
        panel = GenerationPanel(session, settings)
        panel._offered_unfinished = True
        panel.set_input_files(str(image), str(mask))
        qtbot.addWidget(panel)
        panel.resize(560, 980)
        panel.show()
        made.append(panel)
        return panel

    yield make
    for panel in made:
        panel.shutdown()


def wait_idle(qtbot, panel: GenerationPanel, timeout: int = RUN_TIMEOUT_MS) -> None:
    qtbot.waitUntil(lambda: panel._runner is None and not panel.session.busy, timeout=timeout)


def engine_pids() -> list[int]:
    found = []
    for pid in child_pids():
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip().startswith("sd-stage"):
                found.append(pid)
        except OSError:
            pass
    return found


def engine_cmdlines() -> list[str]:
    lines = []
    for pid in engine_pids():
        try:
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            pass
    return lines


def test_a_full_job_clicking_through_the_stages(qtbot, make_panel) -> None:
    panel = make_panel(steps=4)
    previews: list[int] = []
    panel.session.runner_started.connect(
        lambda r: r.preview_saved.connect(lambda step, *_: previews.append(step))
    )
    for i, stage in enumerate(ORDER):
        qtbot.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
        wait_idle(qtbot, panel)
        assert not panel.error_banner.isVisible(), panel.error_banner.text()
        states = panel.stage_list.states()
        assert all(states[s] in ("done", "cached") for s in ORDER[: i + 1]), (stage, states)
        assert all(states[s] == "pending" for s in ORDER[i + 1 :]), (stage, states)
    run = panel.session.run
    assert run.finished
    n = run.steps
    assert previews == list(range(1, n + 1))
    assert panel.strip.steps() == list(range(1, n + 1))
    assert panel.result_view.has_result()
    assert panel.result_view.current.caption() == "Result"
    assert panel.result_view.original.has_image()


def test_pause_then_resume(qtbot, make_panel) -> None:
    panel = make_panel(steps=30)
    panel.all_button.click()
    qtbot.waitUntil(lambda: len(panel.strip.steps()) >= 1, timeout=RUN_TIMEOUT_MS)
    panel.pause_button.click()
    qtbot.waitUntil(lambda: panel._paused, timeout=60_000)
    assert panel.stage_list.state("diffuse") == "paused"
    held = len(panel.strip.steps())
    qtbot.wait(500)
    assert len(panel.strip.steps()) == held  # nothing moves while paused
    assert len(engine_pids()) == 1  # the model stays loaded
    panel.resume_button.click()
    wait_idle(qtbot, panel)
    run = panel.session.run
    assert run.finished and panel.result_view.has_result()
    assert panel.strip.steps() == list(range(1, run.steps + 1))


def test_suspend_then_resume_in_a_new_runner(qtbot, make_panel) -> None:
    panel = make_panel(steps=30)
    panel.all_button.click()
    qtbot.waitUntil(lambda: len(panel.strip.steps()) >= 2, timeout=RUN_TIMEOUT_MS)
    first = panel._runner
    panel.suspend_button.click()
    wait_idle(qtbot, panel)
    assert engine_pids() == []  # the GPU (here: the process) is free
    run = panel.session.run
    k = run.last_completed_step
    assert 2 <= k < run.steps
    assert panel.stage_list.state("diffuse") in ("suspended", "pending")
    started = []
    panel.session.runner_started.connect(started.append)
    panel.resume_button.click()
    wait_idle(qtbot, panel)
    assert started and started[0] is not first
    assert panel.session.run.finished and panel.result_view.has_result()


def test_sigkill_mid_diffuse_then_resume_is_bit_exact(qtbot, make_panel) -> None:
    # An uninterrupted reference first.
    reference = make_panel(prompt="a red door", steps=12)
    reference.all_button.click()
    wait_idle(qtbot, reference)
    assert reference.session.run.finished
    expected = Path(reference.session.run.result).read_bytes()

    panel = make_panel(prompt="a red door", steps=12)
    killed: list[int] = []

    def kill_at_step(step: int, *_: object) -> None:
        if step >= 3 and not killed:
            for pid in engine_pids():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    panel.session.runner_started.connect(lambda r: r.step_progress.connect(kill_at_step))
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert killed, "the engine finished before it could be killed"
    assert panel.error_banner.isVisible()
    assert panel.stage_list.state("diffuse") == "failed"
    text = panel.error_banner.text()
    assert "Diffuse" in text and "Try" in text
    log_text, _ = panel.engine_log_text()
    assert log_text.strip()
    assert not panel.session.run.finished
    panel.resume_button.click()
    wait_idle(qtbot, panel)
    assert not panel.error_banner.isVisible()
    run = panel.session.run
    assert run.finished
    assert Path(run.result).read_bytes() == expected


def test_second_run_with_the_same_prompt_reuses_the_encoding(qtbot, make_panel) -> None:
    first = make_panel(prompt="a green door")
    first.all_button.click()
    wait_idle(qtbot, first)
    assert first.session.run.finished
    assert first.stage_list.state("llm-encode") == "done"

    second = make_panel(prompt="a green door")
    second.seed_spin.setValue(7)  # a different picture, the same prompt
    seen: list[str] = []
    poll = QTimer()
    poll.setInterval(5)
    poll.timeout.connect(lambda: seen.extend(engine_cmdlines()))
    poll.start()
    try:
        second.all_button.click()
        wait_idle(qtbot, second)
    finally:
        poll.stop()
    run = second.session.run
    assert run.finished
    assert second.stage_list.state("llm-encode") == "cached"
    assert [s.state for s in run.stages() if s.name == "llm-encode"] == ["cached"]
    assert any("diffuse" in line for line in seen)  # the poll does see engines
    assert not any("llm-encode" in line for line in seen)  # but never an LLM one
    assert not (Path(run.dir) / "logs" / "llm-encode.log").exists()


def test_after_a_restart_the_suspended_run_is_offered_then_decoded_and_branched(
    qtbot, make_panel
) -> None:
    panel = make_panel(prompt="a yellow door", steps=30)
    panel.all_button.click()
    qtbot.waitUntil(lambda: len(panel.strip.steps()) >= 2, timeout=RUN_TIMEOUT_MS)
    panel.suspend_button.click()
    wait_idle(qtbot, panel)
    k = panel.session.run.last_completed_step
    n = panel.session.run.steps

    restarted = make_panel(prompt="something else", steps=4)  # a new session, as after a restart
    restarted.offer_unfinished_runs()
    buttons = restarted.unfinished_box.findChildren(
        type(restarted.all_button), "generation_resume_unfinished"
    )
    texts = [b.text() for b in buttons]
    assert any(f"at step {k} of {n}" in t and "a yellow door" in t for t in texts), texts
    [button] = [b for b in buttons if "a yellow door" in b.text()]
    button.click()
    wait_idle(qtbot, restarted)
    assert restarted.prompt_edit.toPlainText() == "a yellow door"
    run = restarted.session.run
    assert run.finished and restarted.result_view.has_result()
    assert restarted.strip.steps() == list(range(1, n + 1))

    item = restarted.strip.item(2)
    qtbot.mouseClick(
        restarted.strip.viewport(),
        Qt.MouseButton.LeftButton,
        pos=restarted.strip.visualItemRect(item).center(),
    )
    step = restarted.strip.selected_step()
    restarted.decode_button.click()
    wait_idle(qtbot, restarted)
    assert not restarted.error_banner.isVisible(), restarted.error_banner.text()
    assert restarted.result_view.current.caption() == f"Step {step}, decoded"

    restarted.prompt_edit.setPlainText("a yellow door at night")
    restarted.branch_button.click()
    assert not restarted.error_banner.isVisible(), restarted.error_banner.text()
    branched = restarted.session.run
    assert branched.dir != run.dir and branched.spec.prompt.endswith("at night")
    restarted.all_button.click()
    wait_idle(qtbot, restarted)
    assert restarted.session.run.finished
