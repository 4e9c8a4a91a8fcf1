"""The workspace's parts without the engine: PNG parameter chunks written and read back, the
settings a PNG offers to the job form, a one-stage run's output is no result, the step strip
drops a stale selection, and decoded previews replace the projection only when newer."""

from __future__ import annotations

import dataclasses
import json
import struct
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage

from app.core.errors import InputError
from app.core.settings import Settings
from app.imaging.io import load_image, save_png_atomic
from app.imaging.png_params import (
    PNG_SIGNATURE,
    encode_png_with_parameters,
    read_png_parameters,
    save_png_with_parameters,
)
from app.jobs.call_runner import CallRunner
from app.jobs.job_form import JobForm
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.params import DIFFUSION_DEVICE, DIFFUSION_MODEL, PROMPT, SEED, STEPS
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.ui.generation.steps import GenerationStepStrip
from app.ui.shell.main_window import MainWindow
from app.ui.workspace.png_settings import form_values_of, save_picture


def _picture(h: int = 24, w: int = 32) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    return np.stack([x * 7, y * 9, (x + y) * 3], axis=-1).astype(np.uint8)


def _spec(prompt: str = "a red door", model: str = "d.gguf") -> JobSpec:
    return JobSpec(ModelFiles(model, "l.gguf", "v.safetensors"), prompt=prompt, steps=5, seed=42)


def test_png_parameters_round_trip_in_utf8_and_latin1(tmp_path: Path) -> None:
    picture = _picture()
    for prompt in ("a red door", "一扇红门 <lora:x:1>"):
        path = save_png_with_parameters(
            tmp_path / "p.png", picture, f"{prompt}\nSteps: 5", {"prompt": prompt, "seed": 42}
        )
        assert np.array_equal(load_image(path), picture)  # the pixels are untouched
        carried = read_png_parameters(path)
        assert carried.text == f"{prompt}\nSteps: 5"
        assert carried.spec == {"prompt": prompt, "seed": 42} and carried.has_settings
    data = (tmp_path / "p.png").read_bytes()
    assert data.index(b"iTXt") < data.index(b"IDAT")  # right after IHDR, before the pixels
    assert not list(tmp_path.glob("*.tmp*"))  # written atomically, nothing left over


def test_a_plain_png_carries_nothing_and_a_non_png_is_named(tmp_path: Path) -> None:
    plain = tmp_path / "plain.png"
    save_png_atomic(plain, _picture())
    assert read_png_parameters(plain).text == "" and not read_png_parameters(plain).has_settings
    bogus = tmp_path / "bogus.png"
    bogus.write_bytes(b"GIF89a not a png")
    with pytest.raises(InputError) as raised:
        read_png_parameters(bogus)
    assert "bogus.png" in raised.value.user_message()
    # A truncated file still gives what came before the cut; foreign JSON is no settings.
    data = encode_png_with_parameters(_picture(), "text", {"prompt": "x"})
    cut = tmp_path / "cut.png"
    cut.write_bytes(data[: data.index(b"IDAT") + 10])
    assert read_png_parameters(cut).spec == {"prompt": "x"}
    foreign = tmp_path / "foreign.png"
    chunk = b"stepwise\0\0\0\0\0" + b'{"kind": "other"}'
    crc = struct.pack(">I", 0)
    foreign.write_bytes(
        PNG_SIGNATURE + data[8:33] + struct.pack(">I", len(chunk)) + b"iTXt" + chunk + crc
    )
    assert not read_png_parameters(foreign).has_settings


def test_saved_settings_go_back_into_the_form_without_devices_or_missing_models(
    tmp_path: Path,
) -> None:
    model = tmp_path / "models" / "klein.gguf"
    model.parent.mkdir()
    model.write_bytes(b"GGUF")
    cached = tmp_path / "cache" / "inputs" / "image-0123.png"
    spec = dataclasses.replace(_spec(model=str(model)), image=str(cached), width=512, height=512)
    target = save_picture(tmp_path / "out", _picture(), spec)  # the suffix is added
    assert target.name == "out.png"
    carried = read_png_parameters(target)
    # File names only: a shared picture does not tell where models and cached inputs are.
    assert str(tmp_path) not in json.dumps(carried.spec) and str(tmp_path) not in carried.text
    assert carried.spec["models"]["diffusion"] == "klein.gguf"
    assert carried.spec["image"] == "image-0123.png"
    assert "Size: 32x24" in carried.text  # the picture's size, not the form's 512x512
    # A bare name is found beside the model file of that kind chosen now.
    here = {DIFFUSION_MODEL.name: str(model.parent / "another.gguf")}
    values = form_values_of(carried.spec, here)
    assert values[PROMPT.name] == "a red door" and values[SEED.name] == 42
    assert values[STEPS.name] == 5 and values[DIFFUSION_MODEL.name] == str(model)
    assert DIFFUSION_DEVICE.name not in values  # devices belong to this machine
    assert "llm_model" not in values  # l.gguf does not exist here: the form keeps its own
    # Without a model chosen, a bare name is never looked for in the working folder.
    assert DIFFUSION_MODEL.name not in form_values_of(carried.spec)


def test_open_offers_the_settings_and_no_leaves_the_form(qtbot, tmp_path, dialogs) -> None:
    form = JobForm()
    window = MainWindow(Settings(), job_form=form)
    qtbot.addWidget(window)
    path = save_picture(tmp_path / "made.png", _picture(), _spec(prompt="一扇红门"))
    form.set(PROMPT, "mine")
    assert window.open_image(path)  # the recorder answers No
    assert dialogs.kinds() == ["question"] and "一扇红门" in dialogs.shown[0][2]
    assert form.get(PROMPT) == "mine"
    plain = tmp_path / "plain.png"
    save_png_atomic(plain, _picture())
    assert window.open_image(plain)
    assert dialogs.kinds() == ["question"]  # nothing asked for a PNG without settings


class _OneStagePipeline:
    def __init__(self, output: Path) -> None:
        self.output = output

    def execute(self, _run_dir, _control, *, only=None):
        yield ev.RunFinished(self.output)


def test_a_one_stage_run_loads_no_result(qtbot, tmp_path: Path) -> None:
    prepared = tmp_path / "input.png"
    save_png_atomic(prepared, _picture())
    for only, expected in (
        ("prepare", []),
        (None, [str(prepared)]),
        ("composite", [str(prepared)]),
    ):
        runner = CallRunner.for_execute(
            _OneStagePipeline(prepared), tmp_path, only=only, control=RunControl()
        )
        loaded: list[str] = []
        runner.result_loaded.connect(lambda path, _image, _l=loaded: _l.append(path))
        with qtbot.waitSignal(runner.run_ended, timeout=10_000):
            runner.start()
        runner.wait()
        assert loaded == expected, only


def test_the_step_strip_drops_a_stale_selection(qtbot) -> None:
    strip = GenerationStepStrip()
    qtbot.addWidget(strip)
    thumb = QImage(8, 8, QImage.Format.Format_RGB32)
    strip.add_step(1, "p1.png", thumb)
    strip.add_step(2, "p2.png", thumb)
    strip.setCurrentRow(0)
    assert strip.selected_step() == 1
    strip.add_step(2, "p2.png", thumb)  # a step replaced: the selection stands
    assert strip.selected_step() == 1
    with qtbot.waitSignal(strip.selection_cleared, timeout=1000):
        strip.add_step(3, "p3.png", thumb)
    assert strip.selected_step() is None and strip.steps() == [1, 2, 3]


def _frame(color: str, w: int = 16, h: int = 12) -> QImage:
    image = QImage(w, h, QImage.Format.Format_RGB32)
    image.fill(QColor(color))
    return image


def test_decoded_previews_show_only_when_not_older(qtbot, tmp_path: Path) -> None:
    window = MainWindow(Settings())
    qtbot.addWidget(window)
    workspace, layer = window.workspace, window.canvas_view.layer
    run = SimpleNamespace(
        dir=tmp_path, steps=4, spec=SimpleNamespace(image=None, steps=4), color_match=None
    )
    workspace.model = SimpleNamespace(run=run)  # text to image: no photo, frames stand alone
    workspace.show_preview(2, _frame("#ff0000"))
    assert layer.caption == "Step 2 of 4 · preview" and layer.standalone
    assert window.canvas_view.picture_rect().size().toTuple() == (16, 12)
    workspace.show_decoded_preview(1, "x0_001.png", _frame("#00ff00"))  # older: ignored
    assert layer.caption == "Step 2 of 4 · preview"
    workspace.show_decoded_preview(2, "x0_002.png", _frame("#0000ff"))
    assert layer.caption == "Step 2 of 4 · decoded"
    assert tuple(layer.frame.pixels[0, 0]) == (0, 0, 255)
    assert window.workspace_area.bar.use.isEnabled()  # decoded at full size: usable
    workspace.show_preview(3, _frame("#ffffff"))
    assert layer.caption == "Step 3 of 4 · preview"
    assert not window.workspace_area.bar.use.isEnabled()  # a preview is never the photo
    workspace.show_photo()  # back to the photo: previews stay off until the next run
    workspace.show_preview(4, _frame("#ffffff"))
    assert not layer.visible and not window.workspace_area.bar.use.isEnabled()


def test_the_workspace_keeps_the_window_within_1280x720(qtbot) -> None:
    from app.core.paths import app_paths
    from app.ui.shell.features import install_generation_panel

    settings = Settings()
    window = MainWindow(settings)
    qtbot.addWidget(window)
    panel = install_generation_panel(window, app_paths(), settings)
    panel._first_show = False
    window.resize(1280, 720)
    window.show()
    workspace = window.workspace
    workspace.model = SimpleNamespace(
        run=SimpleNamespace(steps=4, spec=SimpleNamespace(image=None, steps=4), color_match=None)
    )
    workspace.show_preview(1, _frame("#808080"))  # the bar enabled, a picture on the canvas
    size = window.minimumSizeHint().expandedTo(window.minimumSize())
    assert size.width() <= 1280 and size.height() <= 720, size
    panel.shutdown()
