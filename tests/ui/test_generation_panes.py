"""The panes without an engine: model files checked when chosen, LoRA tags, the size row,
the klein advice, the settings dialog, a missing engine explained by its failure kind."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from app.core.paths import app_paths
from app.core.settings import Settings
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.jobs.run_state import RunState
from app.pipeline.job.params import (
    CFG_SCALE,
    DIFFUSION_MODEL,
    EXPAND,
    FLASH_ATTENTION,
    LLM_MODEL,
    LORA_DIR,
    PROMPT,
    THREADS,
    VAE_MODEL,
    WIDTH,
)
from app.ui.generation import GenerationPanel
from app.ui.generation.model_files import check_model_file


def fake_gguf(path: Path, size: int = 4096) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"GGUF" + b"\0" * (size - 4))
    return path


def fake_safetensors(path: Path) -> Path:
    header = json.dumps({"__metadata__": {}}).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 2048)
    return path


@pytest.fixture
def models(tmp_path: Path) -> dict[str, Path]:
    lora_dir = tmp_path / "models" / "loras"
    fake_safetensors(lora_dir / "Detail_Tweaker.safetensors")
    fake_safetensors(lora_dir / "Ink_Style.safetensors")
    return {
        "diffusion": fake_gguf(tmp_path / "models" / "flux-2-klein-4b-Q4_0.gguf"),
        "llm": fake_gguf(tmp_path / "models" / "qwen3-4b-Q4_K_M.gguf"),
        "vae": fake_safetensors(tmp_path / "models" / "flux2-vae.safetensors"),
        "lora": lora_dir,
    }


@pytest.fixture
def panel(qtbot, tmp_path: Path, models: dict[str, Path]) -> GenerationPanel:
    form = JobForm()
    for p, key in (
        (DIFFUSION_MODEL, "diffusion"),
        (LLM_MODEL, "llm"),
        (VAE_MODEL, "vae"),
        (LORA_DIR, "lora"),
    ):
        form.set(p, str(models[key]))
    form.set(PROMPT, "a red fox in the snow")
    session = RunSession(app_paths(), engine=tmp_path / "no-such-sd-stage")
    widget = GenerationPanel(GenerationModel(form, session))
    widget._first_show = False
    qtbot.addWidget(widget)
    widget.resize(560, 980)
    widget.show()
    yield widget
    widget.shutdown()


def test_model_files_are_checked_when_chosen(tmp_path: Path, models) -> None:
    assert check_model_file(str(models["diffusion"]), "diffusion").ok
    missing = check_model_file(str(tmp_path / "nope.gguf"), "diffusion")
    assert not missing.ok and "nope.gguf" in missing.message
    wrong = fake_gguf(tmp_path / "model.bin")
    result = check_model_file(str(wrong), "vae")
    assert not result.ok and "model.bin" in result.message and ".safetensors" in result.message


def test_a_missing_model_refuses_the_start_and_says_which(panel, tmp_path: Path) -> None:
    panel.models_pane.vae_field.set_path(str(tmp_path / "missing-vae.safetensors"))
    assert panel.model.form.get(VAE_MODEL).endswith("missing-vae.safetensors")
    assert "missing-vae.safetensors" in panel.models_pane.vae_field.status.text()
    panel.all_button.click()
    assert panel.error_banner.isVisible()
    # The file chosen is named and said not to exist, not asked for (new-user walk 6).
    banner = panel.error_banner.text()
    assert (
        "missing-vae.safetensors does not exist" in banner and "Choose the VAE file." not in banner
    )
    assert panel.model.run is None and panel.model.state is RunState.IDLE


def test_klein_advice_follows_the_form(panel: GenerationPanel) -> None:
    label = panel.sampling_pane.warning_label
    assert not label.isVisibleTo(panel)
    panel.sampling_pane.cfg_spin.setValue(3.5)
    assert panel.model.form.get(CFG_SCALE) == 3.5
    assert label.isVisibleTo(panel) and "twice" in label.text()
    panel.model.form.set(CFG_SCALE, 1.0)
    assert panel.sampling_pane.cfg_spin.value() == 1.0 and not label.isVisibleTo(panel)


def test_loras_in_the_folder_are_listed_and_inserted_as_tags(panel: GenerationPanel) -> None:
    pane = panel.prompt_pane
    names = [pane.lora_combo.itemText(i) for i in range(pane.lora_combo.count())]
    assert names == ["Detail_Tweaker", "Ink_Style"]
    pane.lora_combo.setCurrentIndex(1)
    pane.lora_insert.click()
    assert panel.model.form.get(PROMPT).endswith("<lora:Ink_Style:1.0>")
    assert pane.prompt_edit.toPlainText().endswith("<lora:Ink_Style:1.0>")


def test_size_follows_the_image_or_the_spin_boxes(panel: GenerationPanel) -> None:
    pane = panel.sampling_pane
    assert pane.size_widget.isEnabled() and not pane.strength_spin.isEnabled()
    panel.model.inputs.set_document(np.zeros((300, 500, 3), np.uint8), None)
    assert not pane.size_widget.isEnabled() and pane.strength_spin.isEnabled()
    assert "500×300" in pane.size_label.text()
    panel.model.inputs.set_document(None, None)
    pane.width_spin.setValue(500)
    pane.width_spin.editingFinished.emit()
    assert pane.width_spin.value() % 16 == 0 and panel.model.form.get(WIDTH) % 16 == 0


def test_settings_dialog_round_trip(qtbot, panel: GenerationPanel) -> None:
    from app.ui.shell.settings_dialog import SettingsDialog

    settings = Settings()
    dialog = SettingsDialog(settings, panel.model.form, panel)
    qtbot.addWidget(dialog)
    dialog.cache_spin.setValue(8192)
    dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
    dialog.threads.setValue(6)
    dialog.flash.setChecked(False)
    dialog.apply()
    assert (settings.cache_limit_mb, settings.language) == (8192, "zh_CN")
    assert panel.model.form.get(THREADS) == 6 and panel.model.form.get(FLASH_ATTENTION) is False


def test_a_missing_engine_is_explained_by_its_kind(qtbot, panel: GenerationPanel) -> None:
    image = np.full((64, 64, 3), 120, np.uint8)
    panel.model.inputs.set_document(image, np.full((64, 64), 255, np.uint8))  # a mask: no question
    panel.all_button.click()
    qtbot.waitUntil(
        lambda: (
            not panel.model.state.busy
            and not panel.model.session.busy
            and not panel.model.start_held
        ),
        timeout=20_000,
    )
    assert panel.model.state is RunState.FAILED
    text = panel.error_banner.text()
    assert panel.error_banner.isVisible()
    assert "The engine sd-stage is missing" in text and "Settings" in text  # where to fix it


def test_vae_tile_size_is_offered_with_tiling_and_reaches_the_job(panel: GenerationPanel) -> None:
    from app.pipeline.job.params import VAE_TILE_SIZE, VAE_TILING
    from app.pipeline.job.spec import spec_from_values

    pane = panel.devices_pane
    pane.vae_tiling.setChecked(False)
    assert not pane.vae_tile_size.isEnabled()
    pane.vae_tiling.setChecked(True)
    assert pane.vae_tile_size.isEnabled()
    pane.vae_tile_size.setValue(16)
    form = panel.model.form
    assert form.get(VAE_TILING) is True and form.get(VAE_TILE_SIZE) == 16
    spec = spec_from_values(form.values())
    assert spec.devices.vae_tiling and spec.devices.vae_tile_size == 16


def test_closing_during_a_run_asks_to_suspend(panel: GenerationPanel, dialogs, monkeypatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    from app.ui.shell.features import confirm_quit_during_run

    suspended: list[bool] = []
    monkeypatch.setattr(panel.model, "suspend", lambda: suspended.append(True))
    assert confirm_quit_during_run(panel) is True  # idle: nothing to ask
    assert dialogs.shown == []
    monkeypatch.setattr(panel.model, "state", RunState.RUNNING)
    dialogs.answers = [QMessageBox.StandardButton.Cancel]
    assert confirm_quit_during_run(panel) is False and suspended == []
    dialogs.answers = [QMessageBox.StandardButton.Yes]
    assert confirm_quit_during_run(panel) is True and suspended == [True]
    assert [kind for kind, _t, _x in dialogs.shown] == ["question", "question"]


def test_an_outpaint_needs_no_prompt_and_no_mask(panel: GenerationPanel) -> None:
    """Issue 41 item 9: README says an outpaint with no prompt runs with klein's fixed
    instruction; the window said "Write a prompt first" and "The mask is empty" while an
    expansion was set."""
    model = panel.model
    model.inputs.set_document(np.full((64, 64, 3), 90, np.uint8), np.zeros((64, 64), np.uint8))
    model.form.set(PROMPT, "")
    assert model.missing() == [PROMPT.name]  # an inpaint still needs its prompt
    assert "mask is empty" in panel.sampling_pane.warning_label.text()
    model.form.set(EXPAND, "16,0,16,0")
    assert model.missing() == [] and not model.repaints_everything()
    label = panel.sampling_pane.warning_label
    assert "mask is empty" not in label.text() or not label.isVisibleTo(panel), label.text()
