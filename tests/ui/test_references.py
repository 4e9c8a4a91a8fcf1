"""Reference images in the GUI: the pane adds (files, drop, paste, the result), removes and
reorders them as thumbnails; they are written by content hash, verified on reuse, and reach
the job's spec and the real engine's run in the pane's order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QGuiApplication

from app.canvas.qimage import array_to_qimage
from app.core.paths import app_paths
from app.engine.tensorfile import file_sha256
from app.imaging.io import load_image, save_png_atomic
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.job_inputs import MAX_REF_SIDE_PX, Reference, write_inputs
from app.jobs.run_session import RunSession
from app.pipeline.job.spec import spec_from_values
from app.ui.generation.references import ReferencesPane
from tests.models.forms import tiny_job_form

RUN_TIMEOUT_MS = 180_000


def picture(path: Path, colour: tuple[int, int, int], size: tuple[int, int] = (48, 32)) -> Path:
    width, height = size
    pixels = np.zeros((height, width, 3), np.uint8)
    pixels[...] = colour
    pixels[: height // 2, : width // 2] = 255 - np.array(colour, np.uint8)
    save_png_atomic(path, pixels)
    return path


def form_for(tiny_models=None) -> JobForm:
    return tiny_job_form(tiny_models, "the same cat, sitting", 2, width=64, height=64)


@pytest.fixture
def pane(qtbot, tmp_path: Path, stepwise_home: Path) -> ReferencesPane:
    session = RunSession(app_paths(), engine=tmp_path / "no-such-sd-stage")
    widget = ReferencesPane(GenerationModel(form_for(), session))
    qtbot.addWidget(widget)
    widget.resize(420, 260)
    widget.show()
    yield widget
    widget.model.shutdown()


def order(pane: ReferencesPane) -> list[str]:
    return [r.name for r in pane.inputs.refs]


def test_add_remove_and_reorder_show_as_thumbnails(pane, tmp_path: Path, dialogs) -> None:
    red = picture(tmp_path / "red.png", (200, 10, 10))
    green = picture(tmp_path / "green.png", (10, 200, 10), (40, 60))
    blue = picture(tmp_path / "blue.png", (10, 10, 200))
    dialogs.open_files = [str(red)]
    pane.add_button.click()
    assert pane.add_files([green, blue]) == 2
    assert order(pane) == ["red.png", "green.png", "blue.png"]
    assert pane.list.count() == 3 and not pane.list.item(0).icon().isNull()
    assert pane.list.item(1).toolTip() == "green.png: 40×60 px"
    assert pane.add_files([tmp_path / "red.png"]) == 0  # the same picture again: one ref

    pane.list.setCurrentRow(2)
    pane.earlier_button.click()
    assert order(pane) == ["red.png", "blue.png", "green.png"]
    assert pane.list.currentRow() == 1
    assert pane.list.item(0).data(Qt.ItemDataRole.UserRole) == pane.inputs.refs[0].key
    pane.list.setCurrentRow(0)
    assert not pane.earlier_button.isEnabled()
    pane.later_button.click()
    assert order(pane) == ["blue.png", "red.png", "green.png"]
    # A drag within the list reports the keys in their new order.
    keys = [r.key for r in pane.inputs.refs]
    pane._reordered([keys[2], keys[0], keys[1]])
    assert order(pane) == ["green.png", "blue.png", "red.png"]
    pane.list.setCurrentRow(1)
    pane.remove_button.click()
    assert order(pane) == ["green.png", "red.png"] and pane.list.count() == 2
    assert [pane.list.item(i).text() for i in range(2)] == ["1", "2"]
    assert dialogs.shown == []


def test_dropped_files_and_a_pasted_picture_are_added(pane, tmp_path: Path) -> None:
    red = picture(tmp_path / "red.png", (200, 10, 10))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(red))])
    drop = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    pane.list.dropEvent(drop)
    assert order(pane) == ["red.png"]
    pixels = np.zeros((24, 40, 3), np.uint8)
    pixels[:, :, 2] = 180
    QGuiApplication.clipboard().setImage(array_to_qimage(pixels))
    assert pane.paste_button.isEnabled()
    pane.paste_button.click()
    assert order(pane) == ["red.png", "Pasted picture"]
    assert np.array_equal(pane.inputs.refs[1].pixels, pixels)


def test_bad_files_are_refused_with_a_message_naming_them(pane, tmp_path: Path, dialogs) -> None:
    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    huge = tmp_path / "panorama.png"
    save_png_atomic(huge, np.zeros((4, MAX_REF_SIDE_PX + 16, 3), np.uint8))
    ok = picture(tmp_path / "ok.png", (1, 2, 3))
    assert pane.add_files([text, huge, tmp_path / "missing.png", ok]) == 1
    assert order(pane) == ["ok.png"]
    messages = [t for _k, _title, t in dialogs.shown]
    assert len(messages) == 3
    assert "notes.png" in messages[0] and "is not a picture Stepwise can read" in messages[0]
    assert "panorama.png" in messages[1] and f"up to {MAX_REF_SIDE_PX} px a side" in messages[1]
    assert "missing.png" in messages[2] and "does not exist" in messages[2]
    assert {title for _k, title, _t in dialogs.shown} == {"Could not add the reference image"}


def test_refs_are_written_by_content_and_verified_on_reuse(tmp_path: Path) -> None:
    a = Reference.load(picture(tmp_path / "a.png", (9, 9, 9)))
    b = Reference.load(picture(tmp_path / "b.png", (99, 9, 9)))
    folder = tmp_path / "inputs"
    files = write_inputs(folder, None, None, (a.pixels, b.pixels))
    assert files.image is None and files.mask is None
    assert [p.name.split("-")[0] for p in files.refs] == ["ref", "ref"]
    assert np.array_equal(load_image(files.refs[1]), b.pixels)
    again = write_inputs(folder, None, None, (b.pixels, a.pixels))
    assert again.refs == (files.refs[1], files.refs[0])
    files.refs[0].write_bytes(b"damaged")  # a damaged cache file is written again
    fixed = write_inputs(folder, None, None, (a.pixels,))
    assert fixed.refs == (files.refs[0],) and np.array_equal(load_image(fixed.refs[0]), a.pixels)


def test_the_panes_refs_reach_the_run_and_the_engine_in_order(
    qtbot, tmp_path: Path, sd_stage: Path, tiny_models, stepwise_home: Path
) -> None:
    session = RunSession(app_paths(), engine=sd_stage)
    model = GenerationModel(form_for(tiny_models), session)
    pane = ReferencesPane(model)
    qtbot.addWidget(pane)
    try:
        paths = [
            picture(tmp_path / f"{name}.png", colour)
            for name, colour in (("a", (250, 0, 0)), ("b", (0, 250, 0)), ("c", (0, 0, 250)))
        ]
        pane.add_files(paths)
        pane.list.setCurrentRow(0)
        pane.remove_button.click()  # a removed
        pane.list.setCurrentRow(1)
        pane.earlier_button.click()  # c before b
        assert order(pane) == ["c.png", "b.png"]
        files = write_inputs(tmp_path / "inputs", None, None, model.inputs.ref_pixels())
        spec = spec_from_values(model.form.values(), refs=tuple(str(p) for p in files.refs))
        assert spec.refs == tuple(str(p) for p in files.refs)
        run = session.create_run(spec)
        with qtbot.waitSignal(session.runner_ended, timeout=RUN_TIMEOUT_MS) as ended:
            session.execute()
        assert ended.args == ["finished"], model.last_failure
        run = session.reload_run()
        assert run is not None and run.finished
        # The run's copies are the pane's pictures, in the pane's order.
        copied = sorted((run.dir / "inputs").iterdir())
        assert [p.name for p in copied] == ["ref_0.png", "ref_1.png"]
        assert all(
            np.array_equal(load_image(p), r.pixels)
            for p, r in zip(copied, model.inputs.refs, strict=True)
        )
        assert (run.dir / "ref_latents.bin").is_file()
        assert file_sha256(run.dir / "ref_latents.bin")
        assert run.stage("vae-encode").state == "done"
        # "Use the result" adds the finished picture as the next reference.
        assert pane.result_button.isEnabled()
        pane.result_button.click()
        assert order(pane) == ["c.png", "b.png", "result.png"]
        assert np.array_equal(pane.inputs.refs[2].pixels, load_image(run.result))
    finally:
        model.shutdown()


def test_run_all_carries_the_panes_refs(
    qtbot, tmp_path: Path, sd_stage: Path, tiny_models, stepwise_home: Path
) -> None:
    session = RunSession(app_paths(), engine=sd_stage)
    model = GenerationModel(form_for(tiny_models), session)
    pane = ReferencesPane(model)
    qtbot.addWidget(pane)
    try:
        pane.add_files([picture(tmp_path / "a.png", (250, 0, 0))])
        with qtbot.waitSignal(model.runner_ended, timeout=RUN_TIMEOUT_MS):
            model.run_next_stage()  # prepare: enough to make the run with its inputs
        run = model.run
        assert run is not None and len(run.spec.refs) == 1
        assert np.array_equal(load_image(run.spec.refs[0]), pane.inputs.refs[0].pixels)
    finally:
        model.shutdown()
