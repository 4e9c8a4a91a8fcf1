"""The Add-object template's "[describe the object]" left in the prompt: Run all stops with the
reason ("Could not start", no stage blamed) and Add to queue adds nothing (issue 30 item 9: the
GUI ran it, klein read the words)."""

from __future__ import annotations

from app.pipeline.job.params import PROMPT
from app.pipeline.job.presets import preset
from tests.ui.runs_fixtures import main_window


def test_run_all_and_add_to_queue_refuse_an_unfilled_slot(qtbot, sd_stage, tiny_models) -> None:
    window = main_window(qtbot, sd_stage, tiny_models)
    panel = window.generation_panel
    model = panel.model
    try:
        model.form.set(PROMPT, preset("add").prompt)
        with qtbot.waitSignal(model.failed, timeout=60_000) as failed:
            panel.all_button.click()
        assert failed.args[0].values["slot"] == "[describe the object]"
        # An up-front refusal: nothing started, so no stage is blamed (issue 30 item 10).
        shown = panel.error_banner.text()
        assert shown.startswith("<b>Could not start: ") and "still holds [describe" in shown, shown
        qtbot.waitUntil(lambda: not model.state.busy and not model.start_held, timeout=60_000)
        assert model.run is None  # nothing was started
        controller = window.queue_controller
        controller.add_button.click()
        assert "[describe the object]" in panel.status_label.text()
        assert controller.model.views == [] and controller.add_button.isEnabled()
    finally:
        panel.shutdown()
