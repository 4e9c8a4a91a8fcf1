"""Creates or refreshes the project's virtual environment (.venv) and what the app needs.

Usage: python scripts/setup_env.py app|test|installer [venv]
(installer: the venv and the Debian packages installer/build.py windows --wine-test needs)
Runs with the Python that should own the venv (3.12+). Re-running is cheap: the install step is
skipped while pyproject.toml and the mode are unchanged. `venv` stops after the virtual
environment (./test.sh lints then, before the system packages and the engine build).
Everything it says goes to stderr: stdout belongs to the command run.sh runs (`queue list --json`).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
MIN_PYTHON = (3, 12)
# Debian packages: Qt's xcb platform needs these to open a window; the Vulkan build needs
# headers, the shader compiler, and Mesa's lavapipe for the tests' Vulkan run.
# Without the libxcb-icccm4 family a bare Debian desktop opens no window ("could not load the Qt
# platform plugin xcb").
APT_XCB = [
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-xinerama0",
    "libxcb-xkb1",
    "libxkbcommon-x11-0",
]
APT_APP = [*APT_XCB, "libegl1", "libgl1", "libfontconfig1", "libdbus-1-3", "fonts-noto-cjk"]
# installer/build.py windows [--wine-test]: the mingw-w64 cross compiler (the engine and the
# launchers), NSIS, debootstrap for the wine 10 chroot, Xvfb + xwd for its GUI screenshots.
APT_INSTALLER = [
    "g++-mingw-w64-x86-64-posix",
    "gcc-mingw-w64-x86-64-posix",
    "binutils-mingw-w64-x86-64",
    "nsis",
    "debootstrap",
    "xvfb",
    "xauth",
    "x11-apps",
]
EXTRAS = {"app": ".", "test": ".[test]", "installer": ".[test]"}
APT_TEST = [
    "cmake",
    "g++",
    "libvulkan-dev",
    "glslc",
    "mesa-vulkan-drivers",
    "libegl1",
    "libgl1",
    "libfontconfig1",
    "libxkbcommon0",
    "libdbus-1-3",
    # the 简体中文 checks render Chinese: without a CJK font every glyph is a box and a title
    # cut to half its height ("生成" read "牛成") cannot be seen
    "fonts-noto-cjk",
]
# How long apt-get waits for the package manager's lock (held for minutes by the automatic
# updates on a freshly booted desktop) before it gives up.
APT_LOCK_WAIT_S = 120
# A child's stdout goes to our stderr (file descriptor 2): stdout is the command's (run.sh).
TO_STDERR = 2
# The faster engine built in the background while the app opens on the one it has.
BACKGROUND_LOG = VENV / "engine-build.log"  # beside the set-up's other state
BUILDING_LINE = "build.py: building now: "  # app/engine/locate.py BUILDING_PREFIX


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def say(text: str) -> None:
    print(f"[setup] {text}", file=sys.stderr, flush=True)


def venv_lacking() -> str | None:
    """One line when this Python cannot make a virtual environment (python.org's embeddable
    Python has no venv or ensurepip module, Debian's none without python3-venv), else None."""
    lacking = []
    for name in ("venv", "ensurepip"):
        try:
            importlib.import_module(name)
        except ImportError:
            lacking.append(name)
    if not lacking:
        return None
    return (
        f"this Python ({sys.executable}) cannot make a virtual environment: it has no "
        f"{' and no '.join(lacking)} module (an embeddable or trimmed Python). Use a full "
        "Python 3.12 (python.org; Debian: apt install python3-venv), or on Windows install "
        "Stepwise with its setup .exe, which needs no Python: `python installer/build.py "
        "windows` makes dist/Stepwise-<version>-setup.exe (README, Windows)"
    )


def ensure_venv() -> Path | None:
    """The venv's Python, made if needed; None when this Python cannot make one (said)."""
    py = venv_python()
    if py.exists():
        probe = subprocess.run(
            [str(py), "-c", "import sys; print(sys.version_info >= (3, 12))"],
            capture_output=True,
            text=True,
        )
        if probe.stdout.strip() == "True":
            return py
    problem = venv_lacking()
    if problem is not None:
        say(problem)
        return None
    if py.exists():
        say("the existing .venv uses an old or broken Python; recreating it")
        shutil.rmtree(VENV)
    import venv

    say(f"creating .venv with Python {sys.version.split()[0]}")
    venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    return py


def install(py: Path, mode: str) -> None:
    spec = EXTRAS[mode]
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + mode.encode()).hexdigest()
    stamp = VENV / f".stepwise-{mode}.stamp"
    if stamp.exists() and stamp.read_text() == digest:
        return
    say(f"installing Stepwise and its dependencies ({spec})")
    pip = [str(py), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True, stdout=TO_STDERR)
    subprocess.run([*pip, "-e", spec], check=True, cwd=ROOT, stdout=TO_STDERR)
    stamp.write_text(digest)


# A package whose command is already on PATH (a CMake from pip or snap, a compiler from
# elsewhere) is not missing.
COMMAND_OF = {"cmake": "cmake", "g++": "g++", "glslc": "glslc"}


def missing_debian_packages(names: list[str]) -> list[str]:
    """The packages of `names` dpkg does not list as installed (none off Debian)."""
    if not sys.platform.startswith("linux") or shutil.which("dpkg-query") is None:
        return []
    missing = []
    for name in names:
        if name in COMMAND_OF and shutil.which(COMMAND_OF[name]):
            continue
        r = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True
        )
        if "install ok installed" not in r.stdout:
            missing.append(name)
    return missing


def ensure_debian_packages(names: list[str]) -> str | None:
    """Installs missing Debian packages when we can (root on Debian). Returns None when they are
    all there, else one line that says what is missing and the command that installs it."""
    missing = missing_debian_packages(names)
    if not missing:
        return None
    command = "sudo apt-get install -y " + " ".join(missing)
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return f"missing system packages; install them with: {command}"
    say("installing system packages: " + " ".join(missing))
    say(
        f"if another apt-get or the automatic updates hold the package manager's lock, "
        f"this waits up to {APT_LOCK_WAIT_S} s for it"
    )
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    apt = ["apt-get", "-o", f"DPkg::Lock::Timeout={APT_LOCK_WAIT_S}"]
    subprocess.run([*apt, "update", "-qq"], check=False, env=env, stdout=TO_STDERR)
    done = subprocess.run(
        [*apt, "install", "-y", "-qq", *missing], check=False, env=env, stdout=TO_STDERR
    )
    still = missing_debian_packages(names)
    if done.returncode == 0 and not still:
        return None
    return (
        f"could not install the system packages {' '.join(still or missing)} (apt-get exit "
        f"{done.returncode}; is another package manager running?); run: {command}"
    )


def missing_toolchain() -> str | None:
    """One line naming what the engine build lacks (CMake, a C++ compiler), or None. POSIX
    only: on Windows CMake finds MSVC itself (native/README.md)."""
    if os.name != "posix":
        return None
    lacking = []
    if shutil.which("cmake") is None:
        lacking.append("CMake")
    if not any(shutil.which(c) for c in (os.environ.get("CXX", ""), "c++", "g++", "clang++") if c):
        lacking.append("a C++ compiler")
    if not lacking:
        return None
    return (
        f"{' and '.join(lacking)} not found; install them with: "
        "sudo apt-get install -y cmake g++ (Debian/Ubuntu)"
    )


def system_ready(mode: str) -> bool:
    """Installs the system packages and checks the toolchain; says what is missing. False: do
    not build (test mode stops here, before a build the tests could not use; the app opens
    without an engine when there is no compiler)."""
    apt = {"app": APT_APP, "test": APT_TEST, "installer": APT_INSTALLER}[mode]
    problem = ensure_debian_packages(apt)
    toolchain = missing_toolchain()
    if mode == "test" and (problem or toolchain):
        say(f"cannot set up the tests: {problem or toolchain}")
        return False
    if problem:
        say(f"{problem}; carrying on without them")
    if toolchain:
        say(
            f"{toolchain}. The engine cannot be built: the painter works, generating needs "
            "sd-stage (README, Troubleshooting)"
        )
    return toolchain is None


def _print_path(build: list[str], extra: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*build, *extra, "--print-path"], cwd=ROOT, capture_output=True, text=True
    )


def _detached() -> dict[str, object]:
    """Popen arguments for a child that outlives this script and its terminal's Ctrl+C."""
    if os.name == "nt":
        flags = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(
            subprocess, "CREATE_NEW_PROCESS_GROUP", 0
        )
        return {"creationflags": flags}
    return {"start_new_session": True}


def spawn_detached(argv: list[str], log_path: Path) -> None:
    """Starts `argv` in ROOT, its output appended to `log_path`, not waited for."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        subprocess.Popen(
            argv,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            **_detached(),  # type: ignore[call-overload]
        )


def build_in_background(build: list[str], extra: list[str]) -> bool:
    """The Vulkan engine is wanted but only the CPU one is built (the Vulkan tools came later):
    the app opens now on the CPU engine and the Vulkan one is built beside it, its output in
    BACKGROUND_LOG; the window's status bar follows the build (native/build.py --print-path says
    it) and the next run after it uses the faster engine. False: nothing to do here (no CPU
    engine to open on, or the Vulkan one is built)."""
    if _print_path(build, extra).returncode == 0:
        return False  # the wanted engine is there
    have = _print_path(build, [])
    if have.returncode != 0:
        return False  # no engine at all: the first start builds in the foreground
    if BUILDING_LINE not in have.stderr:  # not already under way (an earlier start)
        spawn_detached([*build, *extra], BACKGROUND_LOG)
    say(
        "the Vulkan engine is being built in the background (10-30 minutes; its log: "
        f"{BACKGROUND_LOG}). Stepwise opens now on the CPU engine; the status bar follows the "
        "build and the next run after it uses the faster engine"
    )
    return True


def build_engine(py: Path, mode: str) -> None:
    """Builds sd-stage with native/build.py (cached: instant when nothing changed).

    The app gets the Vulkan release build when the toolchain is there, else the CPU one. The
    tests use test builds (`--test-hooks`: the test hooks compiled in): on POSIX with Vulkan only
    the Vulkan one, which is also their CPU engine with no Vulkan driver (tests/conftest.py
    sd_stage), else the CPU and the Vulkan test builds; building here, before pytest, keeps a
    first build out of any test's time limit (the tests' fixtures run the same command and find
    it cached)."""
    build = [str(py), str(ROOT / "native" / "build.py")]
    has_vulkan = bool(shutil.which("glslc") or os.environ.get("VULKAN_SDK"))
    if mode == "test" and has_vulkan and os.name == "posix":
        variants = [["--vulkan", "--test-hooks"]]
    elif mode == "test":
        variants = [["--test-hooks"], ["--vulkan", "--test-hooks"]]
    else:
        variants = [["--vulkan"] if has_vulkan else []]
        if has_vulkan and build_in_background(build, variants[0]):
            return
    for extra in variants:
        name = ("Vulkan" if "--vulkan" in extra else "CPU") + (" test" if mode == "test" else "")
        done = subprocess.run([*build, *extra, "--print-path"], cwd=ROOT, capture_output=True)
        # build.py prints the engine's path on stdout: here it goes to stderr with the rest
        if done.returncode != 0:
            minutes = "10-30" if "--vulkan" in extra else "5-10"
            say(
                f"first start: building the engine sd-stage ({name}) from source, once. This "
                f"takes about {minutes} minutes on a small machine; the compiler's progress "
                "follows. The build is cached (~/.cache/stepwise/build, on Windows "
                "%LOCALAPPDATA%\\Stepwise\\build): later starts skip it. Ctrl+C stops it; "
                "the next start continues where it stopped."
            )
            if mode == "app" and not has_vulkan:
                say(
                    "the engine is built for the CPU only: there is no Vulkan shader compiler "
                    "(glslc). For the GPU install libvulkan-dev and glslc (Debian) or the Vulkan "
                    "SDK, then start again"
                )
            if mode == "app":
                say("Stepwise opens when the build is done.")
        if subprocess.run([*build, *extra], cwd=ROOT, stdout=TO_STDERR).returncode != 0:
            if mode == "app":
                say(
                    "the engine could not be built; the painter works, generating needs "
                    "sd-stage (see README, Troubleshooting)"
                )
            else:
                say(f"the {name} engine could not be built; the tests that need it will fail")


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "app"
    if mode not in EXTRAS:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.version_info < MIN_PYTHON:
        say("Stepwise needs Python 3.12 or newer; this is " + sys.version.split()[0])
        return 1
    py = ensure_venv()
    if py is None:
        return 1
    install(py, mode)
    if sys.argv[2:] == ["venv"]:
        return 0
    if not system_ready(mode):
        return 1 if mode in ("test", "installer") else 0
    if mode != "installer":  # installer/build.py cross-builds the Windows engine itself
        build_engine(py, mode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
