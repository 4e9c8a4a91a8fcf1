"""A stage without steps shows how long it has taken so far (issue 16: a 2-minute VAE decode
showed no elapsed time), and the clock stops when steps or another text take over."""

from __future__ import annotations

from app.ui.generation.steps import GenerationProgressBar


def test_a_stage_without_steps_shows_its_elapsed_time(qtbot) -> None:
    bar = GenerationProgressBar()
    qtbot.addWidget(bar)
    bar.busy("VAE decode…")
    first = bar.detail.text()
    assert first.startswith("VAE decode… · ") and first.endswith("so far")
    qtbot.waitUntil(lambda: bar.detail.text() != first, timeout=20_000)  # it ticks
    assert bar.detail.text().startswith("VAE decode… · ")
    bar.set_step(3, 10, 2.0, 14.0)
    assert "so far" not in bar.detail.text() and not bar._clock.isActive()
    bar.busy("Composite…")
    bar.reset("Done")
    assert bar.detail.text() == "" and not bar._clock.isActive()
