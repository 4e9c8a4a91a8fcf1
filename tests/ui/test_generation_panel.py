"""GenerationPanel over a scripted pipeline (unit level): the form, the stage buttons, the
controls, previews, errors and results. The real engine runs in test_generation_engine.py."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from app.core.paths import app_paths
from app.core.settings import Settings
from app.jobs.run_session import RunSession
from app.ui.generation_models import check_model_file
from app.ui.generation_panel import GenerationPanel
from tests.jobs.scripted import ScriptedPipeline


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
    settings = Settings()
    settings.models.diffusion_model = str(models["diffusion"])
    settings.models.llm = str(models["llm"])
    settings.models.vae = str(models["vae"])
    settings.models.lora_dir = str(models["lora"])
    settings.generation.prompt = "a red fox in the snow"
    settings.devices.diffusion = "cpu"
    settings.devices.vae = "cpu"
    pipeline = ScriptedPipeline(tmp_path / "runs", step_s=0.03)
    session = RunSession(app_paths(), pipeline=pipeline)
    widget = GenerationPanel(session, settings)
    widget._offered_unfinished = True  # the start-up offer is tested on its own
    qtbot.addWidget(widget)
    widget.resize(560, 980)
    widget.show()
    yield widget
    widget.shutdown()


def wait_idle(qtbot, panel: GenerationPanel, timeout: int = 10_000) -> None:
    qtbot.waitUntil(lambda: panel._runner is None and not panel.session.busy, timeout=timeout)


def test_model_files_are_checked_when_chosen(tmp_path: Path, models) -> None:
    assert check_model_file(str(models["diffusion"]), "diffusion").ok
    missing = check_model_file(str(tmp_path / "nope.gguf"), "diffusion")
    assert not missing.ok and "nope.gguf" in missing.message
    wrong = fake_gguf(tmp_path / "model.bin")
    result = check_model_file(str(wrong), "vae")
    assert not result.ok and "model.bin" in result.message and ".safetensors" in result.message
    truncated = tmp_path / "broken.gguf"
    truncated.write_bytes(b"GGUF")
    result = check_model_file(str(truncated), "llm")
    assert not result.ok and "broken.gguf" in result.message
    not_gguf = tmp_path / "text.gguf"
    not_gguf.write_bytes(b"hello" * 1000)
    assert not check_model_file(str(not_gguf), "llm").ok
    small = check_model_file(str(models["diffusion"]), "diffusion")
    assert small.warning  # a few KB is small for a real model: a note, not a refusal


def test_field_status_names_the_file(panel: GenerationPanel, tmp_path: Path) -> None:
    panel.vae_field.set_path(str(tmp_path / "missing-vae.safetensors"))
    assert "missing-vae.safetensors" in panel.vae_field.status.text()
    assert not panel.vae_field.is_valid()
    panel.all_button.click()
    assert panel.error_banner.isVisible()
    assert "missing-vae.safetensors" in panel.error_banner.text()
    assert panel.session.run is None


def test_klein_warning_shows_when_cfg_is_not_one(panel: GenerationPanel) -> None:
    assert not panel.warning_label.isVisible()
    panel.cfg_spin.setValue(3.5)
    assert panel.warning_label.isVisible()
    assert "twice" in panel.warning_label.text()
    panel.cfg_spin.setValue(1.0)
    assert not panel.warning_label.isVisible()


def test_loras_in_the_folder_are_listed_and_inserted_as_tags(panel: GenerationPanel) -> None:
    names = [panel.lora_combo.itemText(i) for i in range(panel.lora_combo.count())]
    assert names == ["Detail_Tweaker", "Ink_Style"]
    panel.lora_combo.setCurrentIndex(1)
    panel.lora_insert.click()
    assert panel.prompt_edit.toPlainText().endswith("<lora:Ink_Style:1.0>")


def test_size_follows_the_image_or_the_spin_boxes(panel: GenerationPanel, tmp_path) -> None:
    assert panel.size_widget.isEnabled()
    image = tmp_path / "photo.png"
    QImage(500, 300, QImage.Format.Format_RGB888).save(str(image))
    panel.set_input_files(str(image))
    assert not panel.size_widget.isEnabled()
    assert (panel.width_spin.value(), panel.height_spin.value()) == (512, 304)
    assert "512×304" in panel.size_label.text()
    panel.set_input_files(None)
    panel.width_spin.setValue(500)
    panel.width_spin.editingFinished.emit()
    assert panel.width_spin.value() % 16 == 0


def test_devices_come_from_the_pipeline(qtbot, panel: GenerationPanel) -> None:
    panel.detect_devices.click()
    qtbot.waitUntil(lambda: panel.device_combos["diffusion"].count() == 2, timeout=5000)
    combo = panel.device_combos["diffusion"]
    assert [combo.itemData(i) for i in range(combo.count())] == ["cpu", "vulkan0"]
    combo.setCurrentIndex(1)
    assert panel.build_spec().devices.diffusion == "vulkan0"
    panel.session.shutdown()


def test_run_next_stage_one_at_a_time(qtbot, panel: GenerationPanel, tmp_path) -> None:
    image = tmp_path / "photo.png"
    QImage(64, 64, QImage.Format.Format_RGB888).save(str(image))
    panel.set_input_files(str(image))
    order = ["prepare", "vae-encode", "llm-encode", "diffuse", "vae-decode", "composite"]
    for i in range(len(order)):
        qtbot.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
        wait_idle(qtbot, panel)
        states = panel.stage_list.states()
        assert all(states[s] in ("done", "cached") for s in order[: i + 1]), states
        assert all(states[s] == "pending" for s in order[i + 1 :]), states
    assert panel.strip.steps() == [1, 2, 3, 4]
    assert panel.result_view.has_result()
    assert panel.result_view.current.caption() == "Result"


def test_text_to_image_steps_over_vae_encode(qtbot, panel: GenerationPanel) -> None:
    panel.next_button.click()
    wait_idle(qtbot, panel)
    panel.next_button.click()
    wait_idle(qtbot, panel)
    states = panel.stage_list.states()
    assert states["prepare"] == "done" and states["llm-encode"] == "done", states
    assert states["vae-encode"] == "skipped" and states["diffuse"] == "pending", states


def test_run_all_streams_every_step_and_shows_the_result(qtbot, panel: GenerationPanel) -> None:
    panel.steps_spin.setValue(6)
    seen_steps: list[int] = []
    panel.session.runner_started.connect(
        lambda r: r.step_progress.connect(lambda s, *_: seen_steps.append(s))
    )
    qtbot.mouseClick(panel.all_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, panel)
    assert seen_steps == [1, 2, 3, 4, 5, 6]
    assert panel.strip.steps() == [1, 2, 3, 4, 5, 6]
    assert panel.progress.bar.value() == 0 and "Done" in panel.progress.bar.format()
    assert panel.result_view.has_result()
    panel.result_view.side_by_side.setChecked(False)
    assert panel.result_view.showing() == "after"


def test_pause_and_resume_buttons(qtbot, panel: GenerationPanel) -> None:
    panel.steps_spin.setValue(40)
    panel.all_button.click()
    qtbot.waitUntil(lambda: len(panel.strip.steps()) >= 2, timeout=10_000)
    assert panel.pause_button.isEnabled() and not panel.resume_button.isEnabled()
    panel.pause_button.click()
    qtbot.waitUntil(lambda: panel._paused, timeout=5000)
    assert panel.stage_list.state("diffuse") == "paused"
    assert panel.resume_button.isEnabled() and not panel.pause_button.isEnabled()
    count = len(panel.strip.steps())
    qtbot.wait(200)
    assert len(panel.strip.steps()) == count
    panel.resume_button.click()
    wait_idle(qtbot, panel, 20_000)
    assert panel.strip.steps() == list(range(1, 41))


def test_suspend_then_resume_continues_in_a_new_runner(qtbot, panel: GenerationPanel) -> None:
    panel.steps_spin.setValue(30)
    panel.all_button.click()
    qtbot.waitUntil(lambda: len(panel.strip.steps()) >= 3, timeout=10_000)
    first = panel._runner
    panel.suspend_button.click()
    wait_idle(qtbot, panel)
    k = panel.session.run.last_completed_step
    assert 3 <= k < 30
    assert "Suspended" in panel.status_label.text()
    assert panel.resume_button.isEnabled()
    started = []
    panel.session.runner_started.connect(started.append)
    panel.resume_button.click()
    wait_idle(qtbot, panel)
    assert started and started[0] is not first
    assert panel.strip.steps() == list(range(1, 31))
    assert panel.result_view.has_result()


def test_failure_says_what_to_do_and_the_log_is_one_click_away(qtbot, panel) -> None:
    panel.session.pipeline.fail_next_at = 2
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert panel.error_banner.isVisible()
    assert "killed" in panel.error_banner.text()
    assert "Run all" in panel.error_banner.text()  # the next thing to try
    assert panel.stage_list.state("diffuse") == "failed"
    text, path = panel.engine_log_text()
    assert "scripted engine log" in text and path.endswith("diffuse.log")
    panel.all_button.click()  # continue from the checkpoint
    wait_idle(qtbot, panel)
    assert panel.result_view.has_result()


def test_second_identical_run_shows_llm_encode_cached(qtbot, panel: GenerationPanel) -> None:
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert panel.stage_list.state("llm-encode") == "done"
    first = panel.session.run
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert panel.session.run is not first
    assert panel.stage_list.state("llm-encode") == "cached"


def test_decode_this_step_and_branch_from_here(qtbot, panel: GenerationPanel) -> None:
    panel.steps_spin.setValue(5)
    panel.all_button.click()
    wait_idle(qtbot, panel)
    item = panel.strip.item(1)
    rect = panel.strip.visualItemRect(item)
    qtbot.mouseClick(panel.strip.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert panel.strip.selected_step() == 2
    assert panel.decode_button.isEnabled()
    panel.decode_button.click()
    wait_idle(qtbot, panel)
    assert "decoded" in panel.result_view.current.caption()
    first = panel.session.run
    panel.prompt_edit.setPlainText("a red fox in the snow, at night")
    panel.branch_button.click()
    assert panel.session.run is not first
    assert panel.session.run.last_completed_step == 2
    assert panel.session.run.spec.prompt.endswith("at night")
    assert panel.strip.steps() == [1, 2]


def test_unfinished_runs_are_offered_and_resume(qtbot, panel: GenerationPanel) -> None:
    panel.steps_spin.setValue(30)
    panel.all_button.click()
    qtbot.waitUntil(lambda: len(panel.strip.steps()) >= 3, timeout=10_000)
    panel.suspend_button.click()
    wait_idle(qtbot, panel)
    k = panel.session.run.last_completed_step
    panel.offer_unfinished_runs()
    assert panel.unfinished_box.isVisible()
    buttons = panel.unfinished_box.findChildren(
        type(panel.all_button), "generation_resume_unfinished"
    )
    assert len(buttons) == 1
    assert f"at step {k} of 30" in buttons[0].text()
    buttons[0].click()
    wait_idle(qtbot, panel)
    assert panel.result_view.has_result()
    assert not panel.unfinished_box.isVisible()


def test_result_is_saved_with_its_parameters(qtbot, panel, tmp_path: Path) -> None:
    panel.all_button.click()
    wait_idle(qtbot, panel)
    saved = panel.save_result(tmp_path / "out" / "fox.png")
    assert saved.is_file()
    image = QImage(str(saved))
    assert "a red fox" in image.text("parameters")
    assert json.loads(image.text("stepwise"))["prompt"] == "a red fox in the snow"
    sidecar = json.loads(saved.with_suffix(".json").read_text())
    assert sidecar["spec"]["steps"] == 4


def test_sdcli_import_fills_the_form(qtbot, panel: GenerationPanel, models) -> None:
    from app.ui.settings_sdcli_import import SdCliImportDialog

    dialog = SdCliImportDialog(panel)
    qtbot.addWidget(dialog)
    dialog.set_command(
        f'sd-cli.exe --diffusion-model "{models["diffusion"]}" --llm "{models["llm"]}" '
        f'--vae "{models["vae"]}" -p "a cat" --cfg-scale 4 --steps 6 -s 7 -W 640 -H 384'
    )
    assert dialog.spec is not None
    assert dialog.notes.count() >= 1
    panel.apply_imported_spec(dialog.spec)
    assert panel.prompt_edit.toPlainText() == "a cat"
    assert panel.steps_spin.value() == 6 and panel.seed_spin.value() == 7
    assert panel.cfg_spin.value() == 4.0 and panel.warning_label.isVisible()
    assert (panel.width_spin.value(), panel.height_spin.value()) == (640, 384)


def test_settings_dialog_round_trip(qtbot, panel: GenerationPanel) -> None:
    from app.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(panel.settings, [("vulkan0", "GPU")], panel)
    qtbot.addWidget(dialog)
    dialog.cache_spin.setValue(8192)
    dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
    dialog.device_combos["diffusion"].setCurrentIndex(
        dialog.device_combos["diffusion"].findData("vulkan0")
    )
    dialog.apply()
    assert panel.settings.cache_limit_mb == 8192
    assert panel.settings.language == "zh_CN"
    assert panel.settings.devices.diffusion == "vulkan0"


def test_a_missing_engine_is_explained_with_the_real_pipeline(qtbot, tmp_path, models) -> None:
    from app.pipeline.commands import _selftest_images

    image, mask = _selftest_images(tmp_path / "in")
    settings = Settings()
    settings.models.diffusion_model = str(models["diffusion"])
    settings.models.llm = str(models["llm"])
    settings.models.vae = str(models["vae"])
    settings.generation.prompt = "a door"
    session = RunSession(app_paths(), engine=tmp_path / "no-such-sd-stage")
    panel = GenerationPanel(session, settings)
    panel._offered_unfinished = True
    qtbot.addWidget(panel)
    panel.show()
    panel.set_input_files(str(image), str(mask))
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert panel.error_banner.isVisible()
    assert "no-such-sd-stage" in panel.error_banner.text()
    assert "Settings" in panel.error_banner.text()  # where to fix it
    assert session.run is not None and not session.run.finished


def test_stage_rows_show_the_device_the_engine_reported(qtbot, panel: GenerationPanel) -> None:
    panel.stage_list.set_device("diffuse", "Vulkan0")
    assert "Vulkan0" in panel.stage_list.topLevelItem(3).toolTip(1)
