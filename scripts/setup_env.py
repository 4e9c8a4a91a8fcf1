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
import json
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
# The app's engine is built in the background while the app opens (on the one it has, or none).
BACKGROUND_LOG = VENV / "engine-build.log"  # beside the set-up's other state
# Which build this started (its pid) and its log, for the window (app/engine/build_state.py
# BUILD_NOTE_NAME, read beside the venv's Python): it sees the build before its first stage.
BACKGROUND_NOTE = VENV / "engine-build.json"
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


def spawn_detached(argv: list[str], log_path: Path) -> int:
    """Starts `argv` in ROOT, its output appended to `log_path`, not waited for; its pid."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        child = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            **_detached(),  # type: ignore[call-overload]
        )
    return child.pid


def write_note(pid: int, options: list[str]) -> None:
    """BACKGROUND_NOTE, written whole (a temporary file renamed over it)."""
    note = {"pid": pid, "log": str(BACKGROUND_LOG), "options": options}
    try:
        BACKGROUND_NOTE.parent.mkdir(parents=True, exist_ok=True)
        tmp = BACKGROUND_NOTE.with_name(f".{BACKGROUND_NOTE.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(note), encoding="utf-8")
        os.replace(tmp, BACKGROUND_NOTE)
    except OSError:
        pass  # the window then sees the build from its first stage on


def build_in_background(build: list[str], extra: list[str], has_vulkan: bool) -> None:
    """The app's engine (`extra`: --vulkan with the Vulkan tools) is built detached, its output
    in BACKGROUND_LOG, while the app opens at once: on the engine it has (the CPU one, when the
    Vulkan tools came later) or on none (the first start: the painter works, generating once the
    build is done). The window's status bar follows the build (app/engine/build_state.py) and
    the commands that need the engine wait for it (app/cli). Nothing to do when it is built;
    not started twice when a build is under way (an earlier start)."""
    wanted = _print_path(build, extra)
    if wanted.returncode == 0:
        return  # the wanted engine is there
    if BUILDING_LINE not in wanted.stderr:
        write_note(spawn_detached([*build, *extra], BACKGROUND_LOG), extra)
    name = "Vulkan" if "--vulkan" in extra else "CPU"
    if extra and _print_path(build, []).returncode == 0:
        say(
            f"the {name} engine is being built in the background (its log: {BACKGROUND_LOG}). "
            "Stepwise opens now on the CPU engine; the status bar shows the build's progress "
            "and the next run after it uses the faster engine"
        )
        return
    say(
        f"first start: the engine sd-stage ({name}) is being built from source in the "
        f"background, once (its log: {BACKGROUND_LOG}). Stepwise opens now: the painter works "
        "at once, and the status bar shows the build's progress and an estimate; generating "
        "works when it is done. Commands that need the engine (./run.sh run, selftest) wait "
        "for it. The build is cached (~/.cache/stepwise/build, on Windows "
        "%LOCALAPPDATA%\\Stepwise\\build): later starts skip it"
    )
    if not has_vulkan:
        say(
            "the engine is built for the CPU only: there is no Vulkan shader compiler (glslc). "
            "For the GPU install libvulkan-dev and glslc (Debian) or the Vulkan SDK, then start "
            "again"
        )


def build_engine(py: Path, mode: str) -> None:
    """Builds sd-stage with native/build.py (cached: instant when nothing changed).

    The app gets the Vulkan release build when the toolchain is there, else the CPU one, built
    in the background while the app opens (build_in_background). The tests use test builds
    (`--test-hooks`: the test hooks compiled in): on POSIX with Vulkan only the Vulkan one,
    which is also their CPU engine with no Vulkan driver (tests/conftest.py sd_stage), else the
    CPU and the Vulkan test builds; built here, in the foreground before pytest, which keeps a
    first build out of any test's time limit (the tests' fixtures run the same command and find
    it cached)."""
    build = [str(py), str(ROOT / "native" / "build.py")]
    has_vulkan = bool(shutil.which("glslc") or os.environ.get("VULKAN_SDK"))
    if mode == "app":
        build_in_background(build, ["--vulkan"] if has_vulkan else [], has_vulkan)
        return
    if has_vulkan and os.name == "posix":
        variants = [["--vulkan", "--test-hooks"]]
    else:
        variants = [["--test-hooks"], ["--vulkan", "--test-hooks"]]
    for extra in variants:
        name = ("Vulkan" if "--vulkan" in extra else "CPU") + " test"
        done = subprocess.run([*build, *extra, "--print-path"], cwd=ROOT, capture_output=True)
        # build.py prints the engine's path on stdout: here it goes to stderr with the rest
        if done.returncode != 0:
            minutes = "10-30" if "--vulkan" in extra else "5-10"
            say(
                f"building the engine sd-stage ({name}) from source, once. This takes about "
                f"{minutes} minutes on a small machine; the compiler's progress follows. The "
                "build is cached: later runs skip it. Ctrl+C stops it; the next run continues "
                "where it stopped."
            )
        if subprocess.run([*build, *extra], cwd=ROOT, stdout=TO_STDERR).returncode != 0:
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
