"""Import sd-cli command: the command's values reach the job form through the parameter
table; the notes are the UI's words for the importer's note codes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.core.paths import app_paths
from app.imaging.io import save_png_atomic
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.pipeline.job.params import (
    CFG_SCALE,
    DIFFUSION_MODEL,
    LLM_DEVICE,
    PROMPT,
    STEPS,
    VAE_MODEL,
)
from app.ui.generation import GenerationPanel
from app.ui.generation.sdcli_import_dialog import SdCliImportDialog


def test_import_sets_the_form_and_explains_in_words(qtbot) -> None:
    form = JobForm()
    form.set(LLM_DEVICE, "vulkan0")  # the user's own choice, not in the command
    panel = GenerationPanel(GenerationModel(form, RunSession(app_paths())))
    qtbot.addWidget(panel)
    dialog = SdCliImportDialog(panel)
    qtbot.addWidget(dialog)
    dialog.set_command('sd-cli --diffusion-model a.gguf -p "a cat" --steps 6 --guidance 3.5')
    notes = [dialog.notes.item(i).text() for i in range(dialog.notes.count())]
    assert any("--guidance" in n and "no effect" in n for n in notes), notes
    assert not any("flag_no_effect" in n for n in notes)  # words, not codes
    panel.apply_imported(dialog.values())
    assert (form.get(PROMPT), form.get(STEPS), form.get(CFG_SCALE)) == ("a cat", 6, 1.0)
    assert form.get(LLM_DEVICE) == "vulkan0"
    assert panel.prompt_pane.prompt_edit.toPlainText() == "a cat"
    assert panel.sampling_pane.steps_spin.value() == 6


def test_the_import_notes_speak_chinese(qtbot) -> None:
    from PySide6.QtCore import QCoreApplication

    from app.ui.words.i18n import TsTranslator

    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        dialog = SdCliImportDialog()
        qtbot.addWidget(dialog)
        dialog.set_command(
            'sd-cli --diffusion-model a.gguf -p "a cat" --guidance 3.5 --cfg-scale 7 --bogus 1'
        )
        notes = [dialog.notes.item(i).text() for i in range(dialog.notes.count())]
    finally:
        QCoreApplication.removeTranslator(translator)
    assert len(notes) >= 3, notes
    # Every note is in Chinese (each carries CJK characters), with its flags filled in.
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in n) for n in notes), notes
    assert any("--guidance" in n for n in notes) and not any("{" in n for n in notes)
    assert dialog.windowTitle() != "Import sd-cli command"


def _panel(qtbot, form: JobForm) -> GenerationPanel:
    panel = GenerationPanel(GenerationModel(form, RunSession(app_paths())))
    qtbot.addWidget(panel)
    return panel


def _notes(dialog: SdCliImportDialog) -> list[str]:
    return [dialog.notes.item(i).text() for i in range(dialog.notes.count())]


def test_a_reference_image_is_imported_and_a_missing_one_is_said(qtbot, tmp_path: Path) -> None:
    ref = tmp_path / "ref.png"
    save_png_atomic(ref, np.full((32, 48, 3), 200, np.uint8))
    panel = _panel(qtbot, JobForm())
    dialog = SdCliImportDialog(panel)
    qtbot.addWidget(dialog)
    dialog.set_command(f'sd-cli -p "a cat" -r "{ref}" -r "{tmp_path / "gone.png"}"')
    notes = _notes(dialog)
    assert any(str(ref) in n and "added" in n for n in notes), notes
    assert any("gone.png" in n and "not added" in n for n in notes), notes
    panel.apply_imported(dialog.values(), dialog.references())
    refs = panel.model.inputs.refs
    assert [r.name for r in refs] == ["ref.png"] and refs[0].pixels.shape == (32, 48, 3)


def test_the_size_of_an_open_picture_is_shown_and_w_h_are_said_to_be_ignored(qtbot) -> None:
    dialog = SdCliImportDialog(picture_size=(451, 300))
    qtbot.addWidget(dialog)
    dialog.set_command('sd-cli -p "a cat" -W 352 -H 864')
    assert "451×300" in dialog.summary.text() and "352×864" not in dialog.summary.text()
    assert any("352×864" in n and "ignored" in n for n in _notes(dialog)), _notes(dialog)
    assert "width" not in dialog.values() and "height" not in dialog.values()
    alone = SdCliImportDialog()
    qtbot.addWidget(alone)
    alone.set_command('sd-cli -p "a cat" -W 352 -H 864')
    assert "352×864" in alone.summary.text()
    assert (alone.values()["width"], alone.values()["height"]) == (352, 864)


def test_a_mapped_flag_names_the_device_in_words_in_english_and_chinese(qtbot) -> None:
    from PySide6.QtCore import QCoreApplication

    from app.ui.words.i18n import TsTranslator

    command = "sd-cli -p x --clip-on-cpu --backend diffusion=vulkan0"
    dialog = SdCliImportDialog()
    qtbot.addWidget(dialog)
    dialog.set_command(command)
    english = _notes(dialog)
    assert any("the text encoder's device" in n for n in english), english
    assert any("the diffusion model's device" in n for n in english), english
    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        dialog.set_command(command + " ")
        chinese = _notes(dialog)
    finally:
        QCoreApplication.removeTranslator(translator)
    for shown in (english, chinese):
        assert not any("_device" in n for n in shown), shown
    assert any("文本编码器" in n for n in chinese), chinese


def test_an_import_keeps_unnamed_models_and_can_be_undone(qtbot, tmp_path: Path) -> None:
    ref = tmp_path / "ref.png"
    save_png_atomic(ref, np.full((16, 16, 3), 9, np.uint8))
    form = JobForm()
    form.update({"diffusion_model": "/m/mine.gguf", "vae_model": "/m/vae.sft", "steps": 8})
    panel = _panel(qtbot, form)
    assert panel.import_undo.button.isHidden()
    dialog = SdCliImportDialog(panel)
    qtbot.addWidget(dialog)
    dialog.set_command(f'sd-cli --diffusion-model /m/other.gguf -p "a dog" --steps 3 -r "{ref}"')
    panel.apply_imported(dialog.values(), dialog.references())
    assert form.get(VAE_MODEL) == "/m/vae.sft"  # the command names no VAE: the user's stays
    assert (form.get(DIFFUSION_MODEL), form.get(STEPS)) == ("/m/other.gguf", 3)
    assert len(panel.model.inputs.refs) == 1 and not panel.import_undo.button.isHidden()
    panel.import_undo.button.click()
    assert (form.get(DIFFUSION_MODEL), form.get(STEPS)) == ("/m/mine.gguf", 8)
    assert form.get(PROMPT) == "" and panel.model.inputs.refs == ()
    assert panel.import_undo.button.isHidden()
