"""A release build has no test hooks (native/CMakeLists.txt SD_STAGE_TEST_HOOKS; native/build.py
without --test-hooks): neither sd-cli's SD_STAGE_DUMP_DIR nor sd-stage's SD_STAGE_TEST_OOM_*,
and `sd-stage --version` says "release" where the suite's test build says "test".

The suite builds test engines only; a release engine more would add a whole build (about 15
minutes on two busy cores). So the release side is checked one step before the compiler:
CMake configures a release build of the test build's patched tree, and the compile units that
hold the hooks are preprocessed with exactly the release build's flags (its
compile_commands.json). The hooks' names must be gone from them; the same units with the test
build's flags are the control (the names are there)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

NATIVE = REPO_ROOT / "native"
CONFIGURE_TIMEOUT_S = 600
PREPROCESS_TIMEOUT_S = 300
# The compile unit of each hook, and the name only the hook's code holds as a string literal.
HOOK_UNITS = {
    "stable-diffusion.cpp": "SD_STAGE_DUMP_DIR",  # includes native/src/sd/stage_dump.inl
    "test_hooks.cpp": "SD_STAGE_TEST_OOM_AT_STEP",
}


def _version(sd_stage: Path) -> str:
    result = subprocess.run(
        [str(sd_stage), "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _cache_value(build_dir: Path, name: str) -> str:
    text = (build_dir / "CMakeCache.txt").read_text(errors="replace")
    match = re.search(rf"^{name}:[A-Z]+=(.*)$", text, re.MULTILINE)
    assert match, f"{name} not in {build_dir / 'CMakeCache.txt'}"
    return match.group(1)


def _preprocessed(build_dir: Path, unit: str) -> str:
    """The compile unit `unit` after the preprocessor, with the build's own flags."""
    commands = json.loads((build_dir / "compile_commands.json").read_text())
    entry = next(c for c in commands if Path(c["file"]).name == unit)
    argv = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "-o":
            skip = True
        elif arg != "-c":
            out.append(arg)
    result = subprocess.run(
        [*out, "-E", "-P"],
        cwd=entry["directory"],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=PREPROCESS_TIMEOUT_S,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def test_build_dir(sd_stage: Path) -> Path:
    build_dir = sd_stage.resolve().parent.parent  # <build>/bin/sd-stage
    if not (build_dir / "compile_commands.json").is_file():
        pytest.skip(f"{sd_stage} is not a native/build.py build (no compile_commands.json)")
    return build_dir


@pytest.fixture(scope="module")
def release_build_dir(test_build_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release build of the test build's patched tree, configured (nothing is compiled)."""
    if shutil.which("cmake") is None:
        pytest.fail("cmake is not on PATH")
    build_dir = tmp_path_factory.mktemp("release-build")
    sd_src = _cache_value(test_build_dir, "SD_SRC")
    result = subprocess.run(
        [
            "cmake", "-S", str(NATIVE), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
            "-DGGML_NATIVE=OFF", f"-DSD_SRC={sd_src}", "-DSD_WEBP=OFF", "-DSD_WEBM=OFF",
            "-DSD_VULKAN=OFF", "-DSD_STAGE_TEST_HOOKS=OFF", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
        ],
        capture_output=True,
        text=True,
        timeout=CONFIGURE_TIMEOUT_S,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return build_dir


def test_the_suites_engine_is_a_test_build(sd_stage: Path) -> None:
    version = _version(sd_stage)
    assert ", test, patches " in version, version
    assert (sd_stage.parent / ("sd-cli" + sd_stage.suffix)).is_file()


def test_build_py_keys_release_and_test_builds_apart() -> None:
    sys.path.insert(0, str(NATIVE))
    try:
        import build as native_build  # native/build.py
    finally:
        sys.path.remove(str(NATIVE))
    args = native_build.argparse.Namespace(vulkan=False, cuda=False, test_hooks=False, target=None)
    release = native_build.build_options(args)
    test = native_build.build_options(
        native_build.argparse.Namespace(**{**vars(args), "test_hooks": True})
    )
    cuda = native_build.build_options(
        native_build.argparse.Namespace(**{**vars(args), "cuda": True})
    )
    assert release["test_hooks"] is False and test["test_hooks"] is True
    assert len({json.dumps(o, sort_keys=True) for o in (release, test, cuda)}) == 3
    assert native_build.variant_name(args) == "cpu-"
    assert (
        native_build.variant_name(
            native_build.argparse.Namespace(**{**vars(args), "test_hooks": True})
        )
        == "cpu-test-"
    )


def test_a_release_build_compiles_no_test_hook(
    test_build_dir: Path, release_build_dir: Path
) -> None:
    version_header = (release_build_dir / "generated" / "sd_stage_version.h").read_text()
    assert '#define SD_STAGE_BUILD_KIND "release"' in version_header
    assert ", release, patches " in version_header
    for unit, name in HOOK_UNITS.items():
        assert f'"{name}"' in _preprocessed(test_build_dir, unit), (
            f"control: {unit} in the test build"
        )
        assert name not in _preprocessed(release_build_dir, unit), f"{unit} of a release build"
