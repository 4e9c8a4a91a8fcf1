"""Under zh_CN every window, dialog and panel shows Chinese: a runtime scan of what is visible
(texts, tooltips, titles, items, headers), not of the source."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.paths import app_paths
from app.core.settings import Settings
from app.ui import i18n
from tests.ui.visible_text import problems, untranslated


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
    from app.ui.generation import install_generation_panel
    from app.ui.main_window import MainWindow

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
    from app.jobs.memory_plan import MemoryPlan, engine_plan_fn
    from app.jobs.run_session import RunSession
    from app.pipeline.api import DeviceInfo
    from app.ui.generation.devices import DevicesPane

    form = tiny_form(diffusion_device="vulkan0")
    model = GenerationModel(form, RunSession(app_paths(), engine=sd_stage))
    model.devices = [DeviceInfo("cpu", "CPU")]
    plan = MemoryPlan(model, engine_plan_fn(lambda: sd_stage))
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
    from app.ui.sentences import tidy

    assert tidy("只生成 64×64 的区域。 它被缩放 ×2.00 到 128×128 像素。") == (
        "只生成 64×64 的区域。它被缩放 ×2.00 到 128×128 像素。"
    )
    assert tidy("Only the area. It is scaled.") == "Only the area. It is scaled."
    from PySide6.QtCore import QCoreApplication

    mapped = QCoreApplication.translate("Texts", "{flag} {value}: used as {target}.")
    assert (
        problems(mapped.format(flag="--clip-on-cpu", value="cpu", target="文本编码器的设备")) == []
    )
