"""The job form: generated from the parameter table, typed, saved debounced; the inputs are
written by content hash and verified when reused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.jobs.job_form import SAVE_DELAY_MS, JobForm
from app.jobs.job_inputs import write_inputs
from app.pipeline.job.params import ALIGN, CFG_SCALE, ONLY_MASKED, PARAMS, PROMPT, STEPS, VAE_TILING


def test_every_parameter_is_a_field_with_its_own_signal(qtbot) -> None:
    form = JobForm()
    for p in PARAMS:
        assert form.get(p) == p.default
        assert type(form.get(p)) is p.kind
        assert hasattr(form, f"{p.name}_changed"), p.name


def test_set_emits_the_fields_signal_with_the_typed_value(qtbot) -> None:
    form = JobForm()
    seen: list[object] = []
    names: list[tuple[str, object]] = []
    form.steps_changed.connect(seen.append)
    form.changed.connect(lambda n, v: names.append((n, v)))
    assert form.set(STEPS, 7) is True
    assert form.set(STEPS, 7) is False  # unchanged: no signal
    form.set(CFG_SCALE, 2)  # an int is a float here
    assert seen == [7]
    assert names == [("steps", 7), ("cfg_scale", 2.0)]
    assert type(form.get(CFG_SCALE)) is float


@pytest.mark.parametrize(
    ("param", "value"), [(STEPS, 0), (STEPS, "4"), (ALIGN, "stretch"), (ONLY_MASKED, 1)]
)
def test_a_bad_value_is_refused_and_the_field_keeps_its_value(qtbot, param, value) -> None:
    form = JobForm()
    with pytest.raises(ValueError, match=param.name):
        form.set(param, value)
    assert form.get(param) == param.default


def test_loading_replaces_bad_values_by_defaults_and_names_them(qtbot) -> None:
    form = JobForm({"steps": 9, "align": "stretch", "unknown": 1})
    assert form.get(STEPS) == 9
    assert form.get(ALIGN) == "pad"
    assert form.replaced == ["align"]


def test_changes_are_saved_once_after_the_debounce(qtbot) -> None:
    saved: list[dict] = []
    form = JobForm(saver=saved.append)
    form.set(PROMPT, "a")
    form.set(PROMPT, "ab")
    form.set(VAE_TILING, True)
    assert saved == [] and form.save_pending
    qtbot.waitUntil(lambda: len(saved) == 1, timeout=SAVE_DELAY_MS * 10)
    qtbot.wait(SAVE_DELAY_MS * 2)
    assert len(saved) == 1
    assert saved[0]["prompt"] == "ab" and saved[0]["vae_tiling"] is True
    assert set(saved[0]) == {p.name for p in PARAMS if p.persist}


def test_update_sets_known_fields_and_reports_refused_ones(qtbot) -> None:
    form = JobForm()
    refused = form.update({"steps": 6, "align": "crop", "seed": -5, "nope": 1})
    assert (form.get(STEPS), form.get(ALIGN)) == (6, "crop")
    assert refused == ["seed"]


def test_inputs_are_named_by_content_and_verified_when_reused(tmp_path: Path) -> None:
    image = np.full((32, 48, 3), 100, np.uint8)
    mask = np.zeros((32, 48), np.uint8)
    mask[8:16, 8:24] = 255
    first = write_inputs(tmp_path, image, mask)
    assert first.image.name.startswith("image-") and first.mask is not None
    again = write_inputs(tmp_path, image, mask)
    assert again == first
    good = first.image.read_bytes()
    first.image.write_bytes(b"damaged")  # same name, wrong bytes: rewritten, not trusted
    write_inputs(tmp_path, image, mask)
    assert first.image.read_bytes() == good
    other = write_inputs(tmp_path, image + 1, None)
    assert other.image != first.image and other.mask is None
    assert write_inputs(tmp_path, image, np.zeros_like(mask)).mask is None  # empty mask
