"""The machine side of bench/gpu_check.py: which GPU backend the driver offers, building the
engine for it, and the driver's own account of device memory sampled while a stage runs.

- Backend: Vulkan when `vulkaninfo --summary` lists a discrete/integrated GPU, or without
  vulkaninfo when a hardware Vulkan ICD is installed (with an NVIDIA GPU: NVIDIA's own ICD, as
  Mesa installs its radeon/intel ICDs on any machine); else CUDA when `nvidia-smi` answers (a
  container given the NVIDIA compute driver without its graphics part has no Vulkan ICD).
- Memory: `nvidia-smi --query-gpu=memory.used` where there is an NVIDIA GPU (both builds), else
  `sd-stage --list-devices` (Vulkan: VK_EXT_memory_budget, total − free), sampled every
  SAMPLE_S from before the stage starts to after it ends; the peak above the first sample is
  what the stage held. A driver whose accounting does not move (lavapipe reports a fixed
  budget) gives None: the caller falls back to ggml's own log lines and says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.engine.devices import list_devices  # noqa: E402

SAMPLE_S = 0.2
SMI_TIMEOUT_S = 10.0
BUILD_TIMEOUT_S = 3600.0
ICD_DIRS = (
    "/usr/share/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
)
SOFTWARE_ICDS = ("lvp_icd", "swiftshader")  # CPU drivers: not a GPU
MIB = 1024 * 1024

# native/build.py's flag per backend: the one place gpu_check names them (the lead adapts
# these at merge when build.py's flags change, e.g. a --test-hooks build).
BUILD_FLAGS: dict[str, tuple[str, ...]] = {"vulkan": ("--vulkan",), "cuda": ("--cuda",)}


def _icd_files() -> list[Path]:
    files = [
        Path(p)
        for var in ("VK_ICD_FILENAMES", "VK_DRIVER_FILES")
        for p in os.environ.get(var, "").split(os.pathsep)
        if p
    ]
    for folder in ICD_DIRS:
        files += sorted(Path(folder).glob("*.json")) if Path(folder).is_dir() else []
    return files


def _vulkaninfo_gpu() -> bool | None:
    """True/False from `vulkaninfo --summary`, None when it is not installed or fails."""
    if shutil.which("vulkaninfo") is None:
        return None
    try:
        done = subprocess.run(
            ["vulkaninfo", "--summary"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return any(
        kind in done.stdout
        for kind in ("PHYSICAL_DEVICE_TYPE_DISCRETE_GPU", "PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU")
    )


def nvidia_gpus() -> list[int]:
    """Indices of the NVIDIA GPUs `nvidia-smi` sees ([] without one)."""
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=index", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=SMI_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [int(v) for v in done.stdout.split() if v.strip().isdigit()]


@dataclass(frozen=True)
class Backend:
    name: str  # "vulkan", "cuda" or "" (no GPU)
    why: str


def detect_backend() -> Backend:
    """The backend to build for this machine's GPU (see the module docstring)."""
    listed = _vulkaninfo_gpu()
    hardware = [f for f in _icd_files() if not f.name.startswith(SOFTWARE_ICDS)]
    nvidia = nvidia_gpus()
    if nvidia and listed is None:  # Mesa installs its radeon/intel ICDs on any machine
        hardware = [f for f in hardware if f.name.startswith("nvidia")]
    if listed or (listed is None and hardware):
        names = ", ".join(f.name for f in hardware) or "vulkaninfo"
        return Backend("vulkan", f"a Vulkan GPU driver is installed ({names})")
    if nvidia:
        return Backend("cuda", "nvidia-smi sees a GPU but no Vulkan GPU driver is installed")
    return Backend("", "no Vulkan GPU driver and no nvidia-smi")


def build_engine(backend: str, on_line: Callable[[str], None] | None = None) -> Path:
    """sd-stage built by native/build.py for `backend` (its last stdout line is the path)."""
    argv = [sys.executable, str(REPO / "native" / "build.py"), *BUILD_FLAGS[backend]]
    proc = subprocess.Popen(
        argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    last = ""
    for line in proc.stdout:
        last = line.strip() or last
        if on_line is not None:
            on_line(line.rstrip())
    if proc.wait(BUILD_TIMEOUT_S) != 0:
        raise SystemExit(f"native/build.py {' '.join(BUILD_FLAGS[backend])} failed (see above)")
    return Path(last)


def gpu_device(engine: Path, env: Mapping[str, str]) -> str:
    """The first non-CPU device the engine lists, as --backend spells it ("vulkan0")."""
    for device in list_devices(engine, dict(env)):
        if device.name.lower() != "cpu":
            return device.name.lower()
    raise SystemExit(
        f"{engine} lists no GPU device. Is the driver installed? (lavapipe: "
        "set GGML_VK_VISIBLE_DEVICES=0)"
    )


# ---- the driver's account of device memory --------------------------------------------------


def _smi_used(index: int) -> int | None:
    try:
        done = subprocess.run(
            ["nvidia-smi", f"--id={index}", "--query-gpu=memory.used",
             "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=SMI_TIMEOUT_S, check=False,
        )  # fmt: skip
        return int(float(done.stdout.split()[0])) * MIB
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return None


def _vulkan_used(engine: Path, env: Mapping[str, str], device: str) -> int | None:
    try:
        for d in list_devices(engine, dict(env)):
            if d.name.lower() == device and d.total_bytes and d.free_bytes is not None:
                return d.total_bytes - d.free_bytes
    except Exception:  # a failed sample is a missing sample
        return None
    return None


def used_reader(engine: Path, env: Mapping[str, str], device: str) -> tuple[str, Callable]:
    """(source name, () -> device bytes in use or None) for `device`."""
    nvidia = nvidia_gpus()
    if nvidia:
        index = int(device[-1]) if device[-1:].isdigit() else 0
        index = nvidia[index] if index < len(nvidia) else nvidia[0]
        return "nvidia-smi", lambda: _smi_used(index)
    return "vk-memory-budget", lambda: _vulkan_used(engine, env, device)


@dataclass
class MemorySampler:
    """Samples `read` from start() to stop(); peak_above_start: the stage's share or None."""

    read: Callable[[], int | None]
    samples: list[int] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> MemorySampler:
        first = self.read()
        if first is not None:
            self.samples.append(first)
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            value = self.read()
            if value is not None:
                self.samples.append(value)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    @property
    def peak_above_start(self) -> int | None:
        if len(self.samples) < 2:
            return None
        peak = max(self.samples) - self.samples[0]
        return peak if peak > 0 else None


def write_json_atomic(path: Path, data: object) -> None:
    from app.core.atomic import write_text_atomic

    write_text_atomic(path, json.dumps(data, indent=2, allow_nan=False) + "\n")
