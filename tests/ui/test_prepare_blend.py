"""The Prepare panel offers the fills from the surroundings (and the preview shows them) and
the colour-match controls, bound to the job form; the composite it applies uses them."""

from __future__ import annotations

import numpy as np
from PIL import Image

from app.imaging import prepare as prep
from app.pipeline.job.params import COLOR_MATCH, COLOR_MATCH_STRENGTH, FILL, SEAM_BLEND
from app.ui.prepare.preview import PreparePreviewDialog

from .painter import IMAGE_H, IMAGE_W, open_window


def _mask(window, x0: int, y0: int, x1: int, y1: int) -> None:
    mask = np.zeros((IMAGE_H, IMAGE_W), np.float32)
    mask[y0:y1, x0:x1] = 1.0
    window.document.replace_mask("Load mask", mask)


def test_the_new_fills_are_offered_and_previewed(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    panel = window.prepare_panel
    combo = panel.fill_combo
    offered = [combo.itemData(i) for i in range(combo.count())]
    assert offered == ["grey", "blur", "none", "telea", "ns", "border"]
    _mask(window, 100, 80, 140, 110)
    image = window.document.image
    hole = np.zeros((IMAGE_H, IMAGE_W), bool)
    hole[80:110, 100:140] = True
    for value in ("telea", "ns", "border"):
        combo.setCurrentIndex(offered.index(value))
        assert panel.form.get(FILL) == value
        window.actions_by_name["preview_prepared"].trigger()
        dialog = dialogs.dialogs[-1]
        assert isinstance(dialog, PreparePreviewDialog)
        prepared = dialog.prepared
        assert prepared.record.fill == value
        filled = prepared.image[:IMAGE_H, :IMAGE_W]  # padded on the right/bottom only
        assert np.array_equal(filled[~hole], image[~hole])
        assert not np.all(filled[hole] == 128)  # not grey: taken from the surroundings
        text = window.prepare_controller.describe(prepared)
        assert ("edges" in text) if value != "border" else ("border" in text)


def test_the_colour_match_controls_set_the_form_and_the_applied_composite(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    panel, controller = window.prepare_panel, window.prepare_controller
    # On by default (issue 32's rule: on only where the bench holds on every case; issue 40's
    # witness-validated match does).
    assert COLOR_MATCH.default == "on" == prep.PrepareOptions().color_match
    assert panel.form.get(COLOR_MATCH) == "on" and panel.color_strength_spin.isEnabled()
    assert controller.options().blend == prep.BlendOptions("on", 1.0, "off")
    panel.color_match_combo.setCurrentIndex(panel.color_match_combo.findData("off"))
    assert panel.form.get(COLOR_MATCH) == "off" and not panel.color_strength_spin.isEnabled()
    panel.color_match_combo.setCurrentIndex(panel.color_match_combo.findData("on"))
    assert panel.form.get(COLOR_MATCH) == "on" and panel.color_strength_spin.isEnabled()
    panel.color_strength_spin.setValue(0.5)
    assert panel.form.get(COLOR_MATCH_STRENGTH) == 0.5
    panel.seam_combo.setCurrentIndex(panel.seam_combo.findData("poisson"))
    assert panel.form.get(SEAM_BLEND) == "poisson"
    assert controller.options().blend == prep.BlendOptions("on", 0.5, "poisson")
    panel.color_match_combo.setCurrentIndex(panel.color_match_combo.findData("off"))
    assert panel.form.get(COLOR_MATCH) == "off" and not panel.color_strength_spin.isEnabled()
    panel.seam_combo.setCurrentIndex(panel.seam_combo.findData("off"))
    # Applying a generated picture uses the panel's choice: off gives the plain composite.
    _mask(window, 100, 80, 140, 110)
    prepared = controller.prepare()
    assert prepared is not None
    # The prepared input brightened: a drift that keeps the photo's texture around the mask
    # (a flat picture would be new content there, which colour match leaves alone).
    generated = np.clip(prepared.image.astype(int) + 25, 0, 255).astype(np.uint8)
    path = tmp_path / "generated.png"
    Image.fromarray(generated).save(path)
    window.prepare_controller.show_result = lambda result, source: None  # type: ignore[method-assign]
    plain = controller.apply_result_file(path, prepared)
    inside = np.s_[80:110, 100:140]
    assert plain is not None and np.array_equal(plain[inside], generated[inside])
    panel.color_match_combo.setCurrentIndex(panel.color_match_combo.findData("on"))
    controller.last_prepared = None
    matched = controller.apply_result_file(path, controller.prepare())
    assert matched is not None and not np.array_equal(matched[inside], generated[inside])
