""""Try with demo models": tiny models made off the UI thread, the form filled, CPU everywhere,
and the demo picture with its mask opened in the painter's document."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app.canvas.document import MaskDocument
from app.core.paths import app_paths
from app.core.settings import Settings
from app.jobs.run_session import RunSession
from app.ui.generation_panel import GenerationPanel


def test_try_with_demo_models(qtbot) -> None:
    session = RunSession(app_paths())
    panel = GenerationPanel(session, Settings())
    panel._offered_unfinished = True
    qtbot.addWidget(panel)
    document = MaskDocument(panel)
    panel.set_document(document)
    panel.show()
    assert panel.demo_button.isVisible()

    qtbot.mouseClick(panel.demo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel._demo_setup is None, timeout=120_000)

    for field in (panel.diffusion_field, panel.llm_field, panel.vae_field):
        assert Path(field.path()).is_file(), field.path()
        assert field.is_valid()
    assert {c.currentData() for c in panel.device_combos.values()} == {"cpu"}
    assert not document.is_empty()
    assert (document.width, document.height) == (256, 256)
    assert document.image_path is not None and document.image_path.name == "demo-picture.png"
    assert not document.mask_is_empty()
    assert "noise" in panel.demo_note.text()
    assert not panel.demo_button.isVisible()  # model files are chosen now
    panel.shutdown()
