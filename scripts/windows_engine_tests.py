#!/usr/bin/env python3
"""The Windows engine, cross-built and tested on Linux: one command.

    .venv/bin/python scripts/windows_engine_tests.py [--vulkan] [--no-install] [-- PYTEST ARGS]

1. installs what is missing (Debian packages, apt-get; needs root): mingw-w64 (posix threads)
   and wine; with --vulkan also the Vulkan headers, glslc, lavapipe (mesa-vulkan-drivers) and Xvfb;
2. builds sd-stage.exe and sd-cli.exe, a test build (the test hooks compiled in), with
   `native/build.py --target windows --test-hooks [--vulkan]`;
3. runs the real-engine tests (tests/engine/test_real_engine.py, test_engine_paths.py: non-ASCII
   paths, \\r\\n event lines) against them under wine, through two wrapper scripts `sd-stage` and
   `sd-cli` that exec wine; the Vulkan build runs on lavapipe under Xvfb.
Prints build time, exe sizes, imported DLLs and test time. Linux only; not part of .ci/run
(a fresh machine spends ~10 min on the CPU build and ~30 min on Vulkan before any test).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE_PACKAGES = [
    "g++-mingw-w64-x86-64-posix",
    "gcc-mingw-w64-x86-64-posix",
    "binutils-mingw-w64-x86-64",
    "wine",
    "wine64",
]
VULKAN_PACKAGES = ["libvulkan-dev", "glslc", "mesa-vulkan-drivers", "xvfb", "xauth"]
TESTS = ["tests/engine/test_real_engine.py", "tests/engine/test_engine_paths.py"]
VULKAN_TESTS = ["tests/engine/test_real_engine.py::test_vulkan_build_runs_diffuse_on_lavapipe"]
WRAPPER = """#!/bin/sh
# Runs the Windows {name}.exe under wine (written by scripts/windows_engine_tests.py).
exec wine "{exe}" "$@"
"""


def say(message: str) -> None:
    print(f"windows_engine_tests: {message}", flush=True)


def missing(packages: list[str]) -> list[str]:
    result = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${Status}\\n", *packages],
        capture_output=True,
        text=True,
    )
    installed = {
        line.split()[0] for line in result.stdout.splitlines() if line.endswith(" installed")
    }
    return [p for p in packages if p not in installed]


def install(packages: list[str]) -> None:
    todo = missing(packages)
    if not todo:
        return
    if shutil.which("apt-get") is None:
        sys.exit(f"windows_engine_tests: install {' '.join(todo)} (no apt-get here)")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    say(f"installing {' '.join(todo)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run([*sudo, "apt-get", "update", "-q"], check=True, env=env)
    cmd = [*sudo, "apt-get", "install", "-y", "-q", "--no-install-recommends", *todo]
    subprocess.run(cmd, check=True, env=env)


def build(vulkan: bool) -> tuple[Path, float]:
    # a test build: test_real_engine.py uses SD_STAGE_DUMP_DIR and SD_STAGE_TEST_OOM_*
    cmd = [sys.executable, str(ROOT / "native" / "build.py"), "--target", "windows", "--test-hooks"]
    cmd += ["--vulkan"] if vulkan else []
    say(" ".join(cmd[1:]))
    started = time.monotonic()
    result = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"windows_engine_tests: the Windows build failed (exit {result.returncode})")
    return Path(result.stdout.strip().splitlines()[-1]), time.monotonic() - started


def wine_env(prefix: Path) -> dict[str, str]:
    return dict(
        os.environ,
        WINEPREFIX=str(prefix),
        WINEARCH="win64",
        WINEDEBUG="-all",
        WINEDLLOVERRIDES="mscoree,mshtml=",  # no Mono / Gecko install prompts
    )


def prepare_prefix(prefix: Path) -> None:
    if (prefix / "system.reg").is_file():
        return
    say(f"creating the wine prefix {prefix}")
    env = wine_env(prefix)
    env.pop("DISPLAY", None)
    subprocess.run(["wineboot", "--init"], env=env, check=True, timeout=600)
    subprocess.run(["wineserver", "-w"], env=env, check=False, timeout=600)


def wrappers(exe: Path, folder: Path) -> Path:
    """`sd-stage` and `sd-cli` beside each other, as the tests expect them."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("sd-stage", "sd-cli"):
        target = exe.with_name(f"{name}.exe")
        if not target.is_file():
            sys.exit(f"windows_engine_tests: {target} is missing (rebuild)")
        script = folder / name
        script.write_text(WRAPPER.format(name=name, exe=target))
        script.chmod(0o755)
    return folder / "sd-stage"


def imports(exe: Path) -> list[str]:
    objdump = shutil.which("x86_64-w64-mingw32-objdump")
    if objdump is None:
        return []
    out = subprocess.run([objdump, "-p", str(exe)], capture_output=True, text=True).stdout
    return sorted(set(re.findall(r"DLL Name: (\S+)", out)))


def figures(exe: Path, build_s: float) -> None:
    for name in ("sd-stage", "sd-cli"):
        path = exe.with_name(f"{name}.exe")
        size = path.stat().st_size / 1e6
        say(f"{path}: {size:.1f} MB, imports {', '.join(imports(path)) or '?'}")
    say(f"build (or cache check): {build_s / 60:.1f} min")


def run_pytest(tests: list[str], env: dict[str, str], extra: list[str]) -> tuple[int, float]:
    cmd = [sys.executable, "-m", "pytest", *tests, "-q", "-rfE", "-p", "no:cacheprovider", *extra]
    say(" ".join(cmd[1:]))
    started = time.monotonic()
    code = subprocess.run(cmd, cwd=ROOT, env=env).returncode
    return code, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vulkan", action="store_true", help="also the Vulkan build on lavapipe")
    parser.add_argument("--no-install", action="store_true", help="do not apt-get anything")
    parser.add_argument("--no-cpu", action="store_true", help="skip the CPU build's tests")
    parser.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --)")
    args = parser.parse_args(argv)
    if sys.platform != "linux":
        sys.exit("windows_engine_tests: runs on Linux (on Windows run the suite itself)")
    if not args.no_install:
        install(BASE_PACKAGES + (VULKAN_PACKAGES if args.vulkan else []))
    cache = Path(os.environ.get("STEPWISE_BUILD_CACHE", Path.home() / ".cache/stepwise/build"))
    prefix = cache.parent / "wine"
    prepare_prefix(prefix)
    env = wine_env(prefix)
    env.update(STEPWISE_TEST_ENGINE_OS="windows", QT_QPA_PLATFORM="offscreen")
    results = []
    if not args.no_cpu:
        exe, build_s = build(vulkan=False)
        figures(exe, build_s)
        env["STEPWISE_TEST_ENGINE"] = str(wrappers(exe, cache.parent / "wine-engine" / "cpu"))
        env.pop("DISPLAY", None)
        # The lavapipe test wants the Vulkan build: it runs below, with --vulkan.
        deselect = [f"--deselect={test}" for test in VULKAN_TESTS]
        code, test_s = run_pytest(TESTS, env, deselect + args.pytest_args)
        results.append(("cpu", code, test_s))
    if args.vulkan:
        exe, build_s = build(vulkan=True)
        figures(exe, build_s)
        vulkan = wrappers(exe, cache.parent / "wine-engine" / "vulkan")
        env["STEPWISE_TEST_ENGINE_VULKAN"] = str(vulkan)
        env.setdefault("STEPWISE_TEST_ENGINE", str(vulkan))
        env["VK_ICD_FILENAMES"] = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
        cmd = ["xvfb-run", "-a", sys.executable, "-m", "pytest", *VULKAN_TESTS, "-q", "-rfE"]
        say(" ".join(cmd))
        started = time.monotonic()
        code = subprocess.run(cmd + args.pytest_args, cwd=ROOT, env=env).returncode
        results.append(("vulkan", code, time.monotonic() - started))
    for name, code, seconds in results:
        say(f"{name}: pytest exit {code} in {seconds / 60:.1f} min")
    return max((code for _, code, _ in results), default=0)


if __name__ == "__main__":
    sys.exit(main())
