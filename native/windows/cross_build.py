"""The mingw-w64 cross build of the Windows engine (used by native/build.py --target windows).

CMake settings that a Linux -> Windows build needs beyond the toolchain file: the CPU features
ON explicitly (a cross build cannot probe the host and turns them off), OpenMP linked from the
static libgomp.a (else the exe needs libgomp-1.dll), and for Vulkan a private include folder with
the host's Vulkan headers (never /usr/include on the mingw path), an import library
libvulkan-1.a for the Windows loader made with dlltool, and the host's glslc.
Python standard library only.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = "windows-x86_64-mingw-w64"
TOOLCHAIN = HERE / "mingw-w64-x86_64.cmake"
PROJECT_INCLUDE = HERE / "stepwise_windows.cmake"
PREFIX = "x86_64-w64-mingw32"
CPU_FEATURES = (
    "SSE42",
    "AVX",
    "AVX2",
    "FMA",
    "F16C",
    "BMI2",
)  # what the Linux build gets from GGML_NATIVE=OFF
PACKAGES = "g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64"
VULKAN_HEADERS = Path("/usr/include")
VULKAN_LOADER = (
    "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
    "/usr/lib64/libvulkan.so.1",
    "/usr/lib/libvulkan.so.1",
)


class CrossBuildError(Exception):
    """A missing cross tool, named with the package that provides it."""


def tool(name: str, package: str) -> str:
    path = shutil.which(f"{PREFIX}-{name}")
    if path is None:
        raise CrossBuildError(
            f"{PREFIX}-{name} not found: install the mingw-w64 cross compiler "
            f"(Debian: apt install {package})"
        )
    return path


def cross_options(build_dir: Path, vulkan: bool) -> list[str]:
    """CMake -D options for the cross build in build_dir (the Vulkan SDK stand-in goes there)."""
    gcc = tool("gcc-posix", PACKAGES)
    tool("g++-posix", PACKAGES)
    tool("windres", PACKAGES)
    libgomp = subprocess.run(
        [gcc, "-print-file-name=libgomp.a"], capture_output=True, text=True
    ).stdout.strip()
    if not Path(libgomp).is_absolute() or not Path(libgomp).is_file():
        raise CrossBuildError(
            f"{PREFIX}-gcc-posix has no static libgomp.a (OpenMP): reinstall "
            "gcc-mingw-w64-x86-64-posix"
        )
    options = [
        f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN.as_posix()}",
        "-DGGML_OPENMP=ON",
        f"-DOpenMP_gomp_LIBRARY={libgomp}",
        "-DGGML_CCACHE=OFF",
    ]
    options += [f"-DGGML_{feature}=ON" for feature in CPU_FEATURES]
    if vulkan:
        options += vulkan_options(build_dir / "vulkan-sdk")
    return options


def vulkan_options(sdk: Path) -> list[str]:
    dlltool = tool("dlltool", "binutils-mingw-w64-x86-64")
    glslc = shutil.which("glslc")
    if glslc is None or not (VULKAN_HEADERS / "vulkan" / "vulkan.h").is_file():
        raise CrossBuildError("Vulkan headers or glslc missing: apt install libvulkan-dev glslc")
    loader = next((p for p in VULKAN_LOADER if Path(p).is_file()), None)
    if loader is None:
        raise CrossBuildError(
            "libvulkan.so.1 not found (its vk* exports make vulkan-1.def): apt install libvulkan1"
        )
    include = sdk / "include"
    for name in ("vulkan", "vk_video"):
        if (VULKAN_HEADERS / name).is_dir():
            shutil.rmtree(include / name, ignore_errors=True)
            shutil.copytree(VULKAN_HEADERS / name, include / name)
    # The Windows loader vulkan-1.dll exports the same vk* entry points as the Linux loader.
    nm = subprocess.run(["nm", "-D", "--defined-only", loader], capture_output=True, text=True)
    names = sorted(set(re.findall(r"^\S+\s+T\s+(vk\w+)$", nm.stdout, re.M)))
    if not names:
        raise CrossBuildError(f"no vk* exports read from {loader} (is binutils' nm installed?)")
    lib = sdk / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    (lib / "vulkan-1.def").write_text(
        "LIBRARY vulkan-1.dll\nEXPORTS\n" + "".join(f"    {n}\n" for n in names)
    )
    result = subprocess.run(
        [
            dlltool,
            "-d",
            str(lib / "vulkan-1.def"),
            "-l",
            str(lib / "libvulkan-1.a"),
            "-D",
            "vulkan-1.dll",
        ],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise CrossBuildError(f"dlltool could not make libvulkan-1.a: {result.stderr.strip()}")
    return [
        f"-DVulkan_INCLUDE_DIR={include.as_posix()}",
        f"-DVulkan_LIBRARY={(lib / 'libvulkan-1.a').as_posix()}",
        f"-DVulkan_GLSLC_EXECUTABLE={glslc}",
    ]
