"""The Prepare pane's "Mask while sampling" control is the job form's mask_mode, both ways,
remembered in the settings, and speaks Chinese."""

from __future__ import annotations

import pytest

from app.core.settings import Settings
from app.pipeline.job.params import MASK_MODE
from app.ui.prepare.panel import PreparePanel
from app.ui.words import i18n
from tests.ui.painter import open_window


def test_the_combo_is_the_forms_mask_mode_and_is_remembered(qtbot, tmp_path) -> None:
    settings = Settings()
    window = open_window(qtbot, tmp_path, settings)
    combo = window.prepare_panel.mask_mode_combo
    assert combo.currentData() == MASK_MODE.default == "soft"
    assert [combo.itemData(i) for i in range(combo.count())] == list(MASK_MODE.choices or ())
    combo.setCurrentIndex(combo.findData("hard"))
    assert window.job_form.get(MASK_MODE) == "hard"
    window.job_form.set(MASK_MODE, "soft")  # an import or a resumed run sets the field
    assert combo.currentData() == "soft"
    combo.setCurrentIndex(combo.findData("hard"))
    window.store_settings()
    assert settings.job["mask_mode"] == "hard"
    again = open_window(qtbot, tmp_path, settings)
    assert again.prepare_panel.mask_mode_combo.currentData() == "hard"


@pytest.fixture
def chinese(qapp):
    translator = i18n.install_translator("zh_CN")
    assert translator is not None
    yield translator
    i18n.remove_translator(translator)


def test_the_control_speaks_chinese(qtbot, tmp_path, chinese) -> None:
    window = open_window(qtbot, tmp_path)
    panel: PreparePanel = window.prepare_panel
    texts = [panel.mask_mode_combo.itemText(i) for i in range(panel.mask_mode_combo.count())]
    assert texts == ["柔和（随羽化渐变）", "硬边（整块 16 像素单元）"]
    assert panel.mask_mode_combo.toolTip().startswith("生成画面时蒙版如何限制改动")
