"""Under zh_CN every window, dialog and panel shows Chinese: a runtime scan of what is visible
(texts, tooltips, titles, items, headers), not of the source."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QDockWidget, QWidget

from app.core.paths import app_paths
from app.core.settings import Settings
from app.imaging.io import encode_png
from app.jobs.run_history import RunEntry, RunStatus
from app.pipeline.api import RunSnapshot
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.ui.words import i18n
from tests.ui.painter import IMAGE_H, IMAGE_W, open_window
from tests.ui.visible_text import clipped_titles, problems, untranslated


@pytest.fixture
def chinese(qapp):
    translator = i18n.install_translator("zh_CN")
    assert translator is not None
    yield translator
    i18n.remove_translator(translator)


def test_the_checks_catch_what_the_user_saw() -> None:
    assert problems("Flux_Klein_NSFW_v2 at 1.0") != []
    assert problems("作为 文本编码器的设备 使用") != []
    assert problems("无法解码。 它被缩放") != []
    assert problems("sampling steps (klein: 4)") != []
    assert problems("画笔 64 px · 硬度 80 %") == []
    assert problems("采样步数（klein：4）") == []


def test_the_main_window_and_its_docks_are_chinese(qtbot, chinese) -> None:
    from app.ui.shell.features import install_generation_panel
    from app.ui.shell.main_window import MainWindow

    settings = Settings()
    window = MainWindow(settings)
    qtbot.addWidget(window)
    panel = install_generation_panel(window, app_paths(), settings)
    try:
        found = untranslated(window)
        assert found == [], "\n".join(found)
    finally:
        panel.shutdown()


def test_the_devices_pane_with_a_missing_gpu_says_so_in_chinese(
    qtbot, chinese, sd_stage, tiny_form
) -> None:
    """The engine refuses a device it does not list: the pane says which device is missing
    and how to choose another, in Chinese: no engine English, JSON or variable, no "bug"."""
    from app.jobs.generation import GenerationModel
    from app.jobs.memory_plan import MemoryPlan, session_plan_fn
    from app.jobs.run_session import RunSession
    from app.pipeline.api import DeviceInfo
    from app.ui.generation.devices import DevicesPane

    form = tiny_form(diffusion_device="vulkan0")
    model = GenerationModel(form, RunSession(app_paths(), engine=sd_stage))
    model.devices = [DeviceInfo("cpu", "CPU")]
    plan = MemoryPlan(model, session_plan_fn(model))
    pane = DevicesPane(model, memory_plan=plan)
    plan.setParent(pane)
    qtbot.addWidget(pane)
    with qtbot.waitSignal(plan.failed, timeout=60_000):
        plan.refresh()
    text = pane.plan_view.label.text()
    assert "vulkan0" in text and "检测设备" in text, text
    for leak in ("缺陷", "GGML_VK", "[{", "no such device", "{device}"):
        assert leak not in text, text
    found = untranslated(pane)
    assert found == [], "\n".join(found)
    plan.wait()


def test_a_missing_device_is_a_device_problem_not_a_bug(chinese) -> None:
    from app.engine.errors import DeviceError, error_for_exit
    from app.jobs.run_state import user_text

    engine_line = (
        '--backend diffusion=vulkan0: no such device (devices: [{"name":"CPU"}]; a CPU Vulkan '
        "driver such as lavapipe is listed only with GGML_VK_VISIBLE_DEVICES=0)"
    )
    error = error_for_exit(2, engine_line, "")
    assert isinstance(error, DeviceError)
    text = user_text(error)
    assert text.startswith("引擎现在在这台电脑上找不到设备 vulkan0。请在"), text
    assert problems(text) == [] and "缺陷" not in text


def test_a_truncated_png_is_explained_in_chinese(chinese, tmp_path) -> None:
    from app.core.errors import StepwiseError
    from app.imaging.io import encode_png, load_image
    from app.jobs.run_state import user_text

    data = encode_png(np.random.default_rng(0).integers(0, 255, (64, 64, 3), np.uint8))
    path = tmp_path / "照片.png"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StepwiseError) as caught:
        load_image(path)
    text = user_text(caught.value)
    assert "image file is truncated" not in text, text
    assert problems(text.replace(str(path), "")) == [], text
    assert text.startswith(f"{path} 不完整"), text


def test_joined_sentences_leave_no_space_after_a_chinese_full_stop(chinese) -> None:
    from app.ui.words.sentences import tidy

    assert tidy("只生成 64×64 的区域。 它被缩放 ×2.00 到 128×128 像素。") == (
        "只生成 64×64 的区域。它被缩放 ×2.00 到 128×128 像素。"
    )
    assert tidy("Only the area. It is scaled.") == "Only the area. It is scaled."
    from PySide6.QtCore import QCoreApplication

    mapped = QCoreApplication.translate("Texts", "{flag} {value}: used as {target}.")
    assert (
        problems(mapped.format(flag="--clip-on-cpu", value="cpu", target="文本编码器的设备")) == []
    )


def _snapshot(tmp_path: Path, name: str, seed: int) -> RunSnapshot:
    run_dir = tmp_path / "runs" / name
    run_dir.mkdir(parents=True)
    result = run_dir / "result.png"
    result.write_bytes(encode_png(np.full((32, 48, 3), 120, np.uint8)))
    spec = JobSpec(
        models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"),
        prompt="一扇蓝色的门",  # the user's words, a value: in Chinese not to be mistaken for UI
        image="image.png",
        steps=8,
        seed=seed,
    )
    return RunSnapshot(run_dir, name, "2026-12-05T14:00:00", spec, (), 8, 8, (3, 8), result,
                       None, None)  # fmt: skip


def _entry(snap: RunSnapshot) -> RunEntry:
    return RunEntry(snap.dir, snap.created, snap.spec.prompt, RunStatus.STOPPED, 3, 8,
                    ("d.gguf", "l.gguf", "v.safetensors"), (64, 48), snap.spec.seed, True, None,
                    None, snap.result, "照片.png")  # fmt: skip


def test_every_dialog_is_chinese(qtbot, chinese, tmp_path, dialogs) -> None:
    """Settings, About, Shortcuts, Expand canvas, Prepared input, Result, Branch, Unfinished
    runs, Compare, Engine log, Step image and Import sd-cli: each built under zh_CN and scanned
    (texts, tooltips, titles, items, headers, suffixes)."""
    from app.imaging.frame import Size
    from app.jobs.job_form import JobForm
    from app.pipeline.api import DeviceInfo
    from app.ui.generation.branch_dialog import BranchDialog
    from app.ui.generation.log import EngineLogDialog
    from app.ui.generation.sdcli_import_dialog import SdCliImportDialog
    from app.ui.generation.steps import StepImageDialog
    from app.ui.painter.expand_dialog import ExpandCanvasDialog
    from app.ui.queue.compare import CompareDialog
    from app.ui.runs.unfinished_dialog import UnfinishedRunsDialog
    from app.ui.shell.help_menu import AboutDialog, ShortcutsDialog
    from app.ui.shell.settings_dialog import SettingsDialog

    window = open_window(qtbot, tmp_path)
    first, second = _snapshot(tmp_path, "run-a", 7), _snapshot(tmp_path, "run-b", 8)
    about = AboutDialog(None, [DeviceInfo("cpu", "CPU")], tmp_path / "no-sd-stage")
    qtbot.addWidget(about)
    asking = about.engine_label.text()
    built: list[QWidget] = [
        SettingsDialog(Settings(), JobForm(), window, paths=app_paths()),
        about,
        ShortcutsDialog(window),
        ExpandCanvasDialog(Size(640, 427), None, window),
        BranchDialog(first, 3, window),
        UnfinishedRunsDialog([_entry(first), _entry(second)], window),
        CompareDialog([first, second], window),
        EngineLogDialog("[INFO] sampling 1/8", str(tmp_path / "engine.log"), window),
        StepImageDialog(3, str(first.result), window),
        SdCliImportDialog(window),
    ]
    mask = np.zeros((IMAGE_H, IMAGE_W), np.float32)
    mask[80:120, 100:160] = 1.0
    window.document.replace_mask("Load mask", mask)
    window.actions_by_name["preview_prepared"].trigger()  # the Prepared input dialog
    window.prepare_controller.show_result(np.zeros((240, 320, 3), np.uint8), first.result)
    assert {type(d).__name__ for d in dialogs.dialogs} == {"PreparePreviewDialog", "ResultDialog"}
    built += dialogs.dialogs
    qtbot.waitUntil(lambda: about.engine_label.text() != asking, timeout=30_000)
    about.probe.wait()
    found = [f"{type(d).__name__}: {line}" for d in built for line in untranslated(d)]
    assert found == [], "\n".join(found)


def test_confirmations_and_save_errors_are_chinese(qtbot, chinese, tmp_path, dialogs) -> None:
    """The message boxes a user meets (unsaved mask, settings in a picture, discard a run or
    the rest of a comparison, quit during a run, a save that fails, a language change): each
    text under zh_CN, with values in it and no English or stray space around them."""
    import errno

    from app.jobs.job_form import JobForm
    from app.ui.kit.guards import confirm_replace_unsaved
    from app.ui.kit.messages import show_error
    from app.ui.queue.compare import CompareDialog
    from app.ui.shell.features import install_generation_panel
    from app.ui.shell.main_window import MainWindow
    from app.ui.workspace.png_settings import (
        offer_png_settings,
        save_picture,
        save_picture_dialog,
    )

    settings = Settings()
    window = MainWindow(settings)
    qtbot.addWidget(window)
    panel = install_generation_panel(window, app_paths(), settings)
    try:
        first, second = _snapshot(tmp_path, "run-a", 7), _snapshot(tmp_path, "run-b", 8)
        picture = np.full((48, 64, 3), 90, np.uint8)
        window.open_image(first.result)
        window.document.set_modified(True)
        confirm_replace_unsaved(window, window.document, save=lambda: True)
        confirm_replace_unsaved(window, window.document)
        saved = save_picture(tmp_path / "带设置.png", picture, first.spec)
        offer_png_settings(window, saved, JobForm())
        window.runs_controller.discard(first.dir)
        compare = CompareDialog([first, second], window)
        window.queue_controller._discard(compare, [second])
        blocker = tmp_path / "a-file"
        blocker.write_text("not a folder")
        dialogs.save_files.append(str(blocker / "result.png"))  # its folder is a file
        assert save_picture_dialog(window, picture, first.spec, "result.png") is None
        for exc in (
            OSError(errno.EIO, "Input/output error"),
            OSError(errno.ENOSPC, "No space left on device"),
            OSError(errno.EACCES, "Permission denied"),
            MemoryError(),
        ):
            show_error(window, "无法保存图片", exc, tmp_path / "result.png")
        window.choose_language("en")
    finally:
        panel.shutdown()
    assert len(dialogs.shown) == 12, dialogs.texts()  # the discard of a stray run folder refused
    found = [
        f"{kind} {title!r}: {text!r} ({'; '.join(problems(title) + problems(text))})"
        for kind, title, text in dialogs.shown
        if problems(title) or problems(text)
    ]
    assert found == [], "\n".join(found)


@pytest.fixture
def styled(qapp):
    """The application's own style in Chinese (Fusion, its font, dark.qss: the paddings the
    titles get), put back afterwards."""
    from app.ui.shell.application import apply_style

    style, sheet, font = qapp.style().name(), qapp.styleSheet(), qapp.font()
    apply_style(qapp, "zh_CN")
    yield qapp
    qapp.setStyleSheet(sheet)
    qapp.setStyle(style)
    qapp.setFont(font)


def test_dock_titles_and_tabs_show_their_whole_text(qtbot, chinese, styled) -> None:
    """Issue 30 item 5: "生成" read "牛成" (its bottom stroke cut). Every dock title bar and tab
    at 1280×720 keeps every row of its text's ink."""
    from app.ui.shell.features import install_generation_panel
    from app.ui.shell.main_window import MainWindow

    settings = Settings()
    window = MainWindow(settings)
    qtbot.addWidget(window)
    panel = install_generation_panel(window, app_paths(), settings)
    try:
        window.resize(1280, 720)
        window.show()
        qtbot.waitExposed(window)
        titles = {d.windowTitle() for d in window.findChildren(QDockWidget) if d.isVisible()}
        assert "生成" in titles, titles
        found = clipped_titles(window)
        assert found == [], "\n".join(found)
    finally:
        panel.shutdown()
