""" "Try with demo models": tiny models made off the UI thread, the form filled, CPU everywhere,
and the demo picture with its mask opened in the painter's document."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app.core.paths import app_paths
from app.core.settings import Settings
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    LLM_DEVICE,
    LLM_MODEL,
    VAE_DEVICE,
    VAE_MODEL,
)
from app.ui.shell.features import install_generation_panel
from app.ui.shell.main_window import MainWindow


def test_try_with_demo_models(qtbot) -> None:
    settings = Settings()
    window = MainWindow(settings)
    qtbot.addWidget(window)
    panel = install_generation_panel(window, app_paths(), settings)
    panel._first_show = False
    panel.show()
    pane = panel.models_pane
    assert not pane.demo_button.isHidden()

    qtbot.mouseClick(pane.demo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.demo_button.isEnabled(), timeout=120_000)

    form = panel.model.form
    for field, param in (
        (pane.diffusion_field, DIFFUSION_MODEL),
        (pane.llm_field, LLM_MODEL),
        (pane.vae_field, VAE_MODEL),
    ):
        assert Path(form.get(param)).is_file(), form.get(param)
        assert field.path() == form.get(param) and field.is_valid()
    assert {form.get(p) for p in (LLM_DEVICE, DIFFUSION_DEVICE, VAE_DEVICE)} == {"cpu"}
    combos = panel.devices_pane.device_combos.values()
    assert {c.currentData() for c in combos} == {"cpu"}
    document = window.document
    assert (document.width, document.height) == (256, 256)
    assert document.image_path is not None and document.image_path.name == "demo-picture.png"
    assert not document.mask_is_empty()
    assert panel.model.inputs.size == (256, 256) and panel.model.inputs.has_mask
    assert "noise" in pane.demo_note.text()
    assert pane.demo_button.isHidden()  # model files are chosen now
    panel.shutdown()
