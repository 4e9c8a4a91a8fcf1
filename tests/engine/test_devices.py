"""Device listing: the real engine lists at least the CPU; a broken answer is a clear error."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.engine.devices import RecentDevices, list_devices
from app.engine.errors import ProtocolError
from app.pipeline.api import DeviceInfo
from app.pipeline.runner import Pipeline


def test_real_engine_lists_the_cpu(sd_stage: Path) -> None:
    devices = list_devices(sd_stage)
    assert "CPU" in [d.name for d in devices]
    assert all(d.description for d in devices)


def test_pipeline_offers_lower_case_names(sd_stage: Path) -> None:
    devices = Pipeline(app_paths(), engine=sd_stage).devices()
    assert all(isinstance(d, DeviceInfo) for d in devices)
    assert "cpu" in [d.name for d in devices]
    assert all(d.name == d.name.lower() and d.description for d in devices)
    assert [tuple(d) for d in devices] == [(d.name, d.description) for d in devices]


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fake-sd-stage"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in engine is a #!/bin/sh script")
@pytest.mark.parametrize("body", ["echo garbage", "exit 3", 'echo \'{"name": "CPU"}\''])
def test_a_broken_answer_is_a_clear_error(tmp_path: Path, body: str) -> None:
    with pytest.raises(ProtocolError, match="device list"):
        list_devices(_script(tmp_path, body))


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in engine is a #!/bin/sh script")
def test_untrusted_items_are_filtered_and_bounded(tmp_path: Path) -> None:
    fake = _script(
        tmp_path, 'echo \'[{"name": "Vulkan0", "description": "%s"}, 5, {"x": 1}]\'' % ("x" * 1000)
    )
    devices = list_devices(fake)
    assert [d.name for d in devices] == ["Vulkan0"]
    assert len(devices[0].description) == 256


def test_real_engine_reports_the_cpus_memory(sd_stage: Path) -> None:
    cpu = next(d for d in list_devices(sd_stage) if d.name == "CPU")
    assert cpu.total_bytes is not None and cpu.total_bytes > 256 * 1024 * 1024
    assert cpu.free_bytes is not None and 0 < cpu.free_bytes <= cpu.total_bytes
    assert cpu.max_alloc_bytes == cpu.total_bytes
    assert cpu.fp16 is False


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in engine is a #!/bin/sh script")
def test_memory_facts_are_parsed_and_bounded(tmp_path: Path) -> None:
    fake = _script(
        tmp_path,
        "echo '["
        '{"name": "Vulkan0", "description": "GPU", "total_bytes": 8589934592, '
        '"free_bytes": 8000000000, "max_alloc_bytes": 2147483648, "fp16": true}, '
        '{"name": "Vulkan1", "description": "odd", "total_bytes": -1, "free_bytes": "x", '
        '"max_alloc_bytes": true, "fp16": 1}, '
        '{"name": "CPU", "description": "old engine"}'
        "]'",
    )
    gpu, odd, old = list_devices(fake)
    assert (gpu.total_bytes, gpu.free_bytes, gpu.max_alloc_bytes, gpu.fp16) == (
        8589934592,
        8000000000,
        2147483648,
        True,
    )
    assert (odd.total_bytes, odd.free_bytes, odd.max_alloc_bytes, odd.fp16) == (None,) * 4
    assert (old.name, old.total_bytes, old.fp16) == ("CPU", None, None)


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in engine is a #!/bin/sh script")
def test_a_fresh_listing_is_reused_for_the_same_engine_file_and_environment(
    tmp_path: Path,
) -> None:
    calls = tmp_path / "calls"
    fake = _script(tmp_path, f'echo x >> "{calls}"; echo \'[{{"name": "CPU"}}]\'')
    recent = RecentDevices(max_age_s=3600.0)
    assert [d.name for d in recent.get(fake, {"A": "1"})] == ["CPU"]
    assert [d.name for d in recent.get(fake, {"A": "1"})] == ["CPU"]
    assert calls.read_text().count("x") == 1  # one engine process for both
    recent.get(fake, {"A": "2"})  # another environment (e.g. GGML_VK_VISIBLE_DEVICES)
    assert calls.read_text().count("x") == 2
    fake.write_text(fake.read_text().replace("CPU", "Vulkan0"))  # the engine changed
    assert [d.name for d in recent.get(fake, {"A": "2"})] == ["Vulkan0"]
    assert calls.read_text().count("x") == 3
    assert [d.name for d in RecentDevices(max_age_s=0.0).get(fake)] == ["Vulkan0"]
    assert calls.read_text().count("x") == 4  # a listing too old is asked again


def test_the_cpu_engine_has_no_gpu_even_when_asked_for_one(sd_stage: Path) -> None:
    # The suite's CPU engine may be the Vulkan build with no driver (tests/conftest.py): it must
    # then list only the CPU, as the CPU build does, even with lavapipe made visible.
    env = {**os.environ, "GGML_VK_VISIBLE_DEVICES": "0"}
    assert [d.name for d in list_devices(sd_stage, env)] == ["CPU"]
