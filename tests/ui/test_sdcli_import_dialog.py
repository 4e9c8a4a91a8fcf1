"""Import sd-cli command: the command's values reach the job form through the parameter
table; the notes are the UI's words for the importer's note codes."""

from __future__ import annotations

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.pipeline.params import CFG_SCALE, LLM_DEVICE, PROMPT, STEPS
from app.ui.generation import GenerationPanel
from app.ui.settings_sdcli_import import SdCliImportDialog


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

    from app.ui.i18n import TsTranslator

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
