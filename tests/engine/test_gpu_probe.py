"""bench/gpu_probe.py picks the backend gpu_check builds from what the driver installed: a
Vulkan ICD of a real GPU → Vulkan; only a CPU driver (lavapipe) but nvidia-smi answering →
the CUDA stand-in; neither → no GPU, said in words."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))

import gpu_probe

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a shell-script nvidia-smi")


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An ICD folder and a PATH of its own (no vulkaninfo, no nvidia-smi unless put there)."""
    icd, bin_dir = tmp_path / "icd.d", tmp_path / "bin"
    icd.mkdir()
    bin_dir.mkdir()
    (icd / "lvp_icd.x86_64.json").write_text("{}")
    monkeypatch.setattr(gpu_probe, "ICD_DIRS", (str(icd),))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("VK_ICD_FILENAMES", raising=False)
    monkeypatch.delenv("VK_DRIVER_FILES", raising=False)
    return icd, bin_dir


def _nvidia_smi(bin_dir: Path) -> None:
    script = bin_dir / "nvidia-smi"
    script.write_text("#!/bin/sh\necho 0\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_a_gpu_icd_means_vulkan(machine) -> None:
    icd, bin_dir = machine
    (icd / "nvidia_icd.json").write_text("{}")
    _nvidia_smi(bin_dir)
    backend = gpu_probe.detect_backend()
    assert backend.name == "vulkan" and "nvidia_icd.json" in backend.why
    assert gpu_probe.BUILD_FLAGS["vulkan"] == ("--vulkan",)


def test_only_lavapipe_and_nvidia_smi_means_the_cuda_stand_in(machine) -> None:
    _, bin_dir = machine
    _nvidia_smi(bin_dir)
    assert gpu_probe.nvidia_gpus() == [0]
    assert gpu_probe.detect_backend().name == "cuda"


def test_mesas_icds_beside_an_nvidia_gpu_are_not_its_vulkan(machine) -> None:
    icd, bin_dir = machine
    (icd / "radeon_icd.x86_64.json").write_text("{}")  # Mesa installs these everywhere
    _nvidia_smi(bin_dir)
    assert gpu_probe.detect_backend().name == "cuda"


def test_no_gpu_at_all_is_said(machine) -> None:
    backend = gpu_probe.detect_backend()
    assert backend.name == "" and "no Vulkan GPU driver" in backend.why
