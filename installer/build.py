#!/usr/bin/env python3
"""Build the Stepwise bundle for the platform this runs on, smoke-test it, and make the Windows
installer.

    python installer/build.py [--engine PATH]              one-folder bundle → dist/Stepwise/
    python installer/build.py smoke [--bundle DIR]         --help, selftest, the GUI under Xvfb
                                                           (Linux; screenshot in build/installer/)
    python installer/build.py nsis --bundle DIR [--wine-test]
                                                           Windows installer from a Windows bundle
    python installer/build.py nsis --placeholder [--wine-test]
                                                           ... around a staged stand-in bundle

Needs the `installer` extra (pip install -e .[installer]: PyInstaller) for the bundle, makensis
(Debian: nsis; Windows: NSIS 3) for the installer, wine64 + Xvfb for the tests under wine.
The bundle needs a built engine: it asks native/build.py --print-path (the Vulkan build when
there is one) unless --engine names it. A Windows bundle needs Windows
Python (PyInstaller does not cross-compile): run this file there, or installer\\build.cmd.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "installer"
DIST = ROOT / "dist"
SPEC = ROOT / "installer" / "stepwise.spec"
NSI = ROOT / "installer" / "stepwise.nsi"
WINDOWS = sys.platform == "win32"
EXE = "Stepwise.exe" if WINDOWS else "Stepwise"
CLI_EXE = "stepwise-cli.exe" if WINDOWS else "Stepwise"  # Windows: Stepwise.exe has no console
GUI_SECONDS = 12.0


def say(text: str) -> None:
    print(f"[installer] {text}", flush=True)


def fail(text: str) -> int:
    print(f"installer/build.py: error: {text}", file=sys.stderr)
    return 1


def version() -> str:
    for line in (ROOT / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("version"):
            return line.split("=", 1)[1].strip().strip('"')
    return "0.0.0"


def find_engine(explicit: Path | None) -> Path:
    """--engine, else what native/build.py --print-path names (the Vulkan build if there is one)."""
    if explicit is not None:
        return explicit.resolve()
    argv = [sys.executable, str(ROOT / "native" / "build.py"), "--print-path"]
    result = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise SystemExit(
            fail("no engine is built. Build it first: python native/build.py [--vulkan]")
        )
    return Path(lines[-1]).resolve()


def build_bundle(engine: Path) -> Path:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        raise SystemExit(
            fail("PyInstaller is missing. Install the extra: pip install -e .[installer]")
        ) from None
    if not engine.is_file():
        raise SystemExit(fail(f"the engine {engine} does not exist"))
    say(f"engine: {engine} ({engine.stat().st_size / 1e6:.1f} MB)")
    started = time.monotonic()
    env = dict(os.environ, STEPWISE_BUNDLE_ENGINE=str(engine))
    argv = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN"]
    argv += ["--distpath", str(DIST), "--workpath", str(WORK / "pyinstaller"), str(SPEC)]
    subprocess.run(argv, check=True, cwd=ROOT, env=env)
    bundle = DIST / "Stepwise"
    say(f"bundle: {bundle} ({folder_mb(bundle):.0f} MB) in {time.monotonic() - started:.0f} s")
    return bundle


def folder_mb(folder: Path) -> float:
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_size for p in files) / 1e6


def isolated_env(home: Path) -> dict[str, str]:
    """Settings, caches and runs of a smoke test go to a temporary home, not the user's."""
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / "config"))
    env.update(XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "cache"))
    env.update(XDG_STATE_HOME=str(home / "state"), LOCALAPPDATA=str(home / "local"))
    env.pop("STEPWISE_SD_STAGE", None)  # the bundled engine must be the one found
    return env


def smoke(bundle: Path) -> int:
    exe = bundle / CLI_EXE
    if not exe.is_file():
        return fail(f"{exe} does not exist; build the bundle first: python installer/build.py")
    WORK.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="stepwise-smoke-") as tmp:
        env = isolated_env(Path(tmp))
        for argv, limit in (([str(exe), "--help"], 120), ([str(exe), "selftest"], 900)):
            started = time.monotonic()
            result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=limit)
            took = time.monotonic() - started
            say(f"{' '.join(argv[1:])}: exit {result.returncode} in {took:.1f} s")
            print(result.stdout[-2000:], result.stderr[-2000:], sep="\n", flush=True)
            if result.returncode != 0:
                return fail(f"`{exe.name} {' '.join(argv[1:])}` exited {result.returncode}")
        if sys.platform.startswith("linux"):
            return smoke_gui(bundle / EXE, env)
    return 0


def smoke_gui(exe: Path, env: dict[str, str]) -> int:
    """Opens the GUI on a private Xvfb display, takes a screenshot, closes it."""
    if shutil.which("Xvfb") is None or shutil.which("xwd") is None:
        return fail("the GUI check needs Xvfb and xwd (Debian: xvfb x11-apps netpbm)")
    display = f":{90 + os.getpid() % 9}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
    gui = None
    try:
        time.sleep(1.5)
        env = dict(env, DISPLAY=display, QT_QPA_PLATFORM="xcb")
        log = (WORK / "gui.log").open("wb")
        gui = subprocess.Popen([str(exe)], env=env, stdout=log, stderr=subprocess.STDOUT)
        time.sleep(GUI_SECONDS)
        if gui.poll() is not None:
            return fail(f"the GUI exited with {gui.returncode}; see {WORK / 'gui.log'}")
        shot = WORK / "gui.png"
        xwd = subprocess.run(
            ["xwd", "-root", "-silent", "-display", display], capture_output=True, check=True
        ).stdout
        png = subprocess.run(
            "xwdtopnm 2>/dev/null | pnmtopng",
            shell=True,
            input=xwd,
            capture_output=True,
            check=True,
        ).stdout
        shot.write_bytes(png)
        say(f"GUI ran {GUI_SECONDS:g} s under Xvfb; screenshot: {shot}")
        return 0
    finally:
        if gui is not None and gui.poll() is None:
            gui.terminate()
            gui.wait(10)
        xvfb.terminate()
        xvfb.wait(10)


# -- Windows installer (NSIS) -------------------------------------------------------------------


def stage_placeholder() -> Path:
    """A stand-in Windows bundle: the real cross-built sd-stage.exe when there is one (else a
    placeholder file), the resources, and placeholder executables. Enough to test the installer."""
    stage = WORK / "win-stage" / "Stepwise"
    shutil.rmtree(stage.parent, ignore_errors=True)
    internal = stage / "_internal"
    internal.mkdir(parents=True)
    shutil.copytree(ROOT / "resources", internal / "resources")
    engine = cross_built_engine()
    if engine is not None:
        shutil.copy2(engine, internal / "sd-stage.exe")
        say(f"staged the cross-built engine {engine}")
    else:
        (internal / "sd-stage.exe").write_bytes(b"placeholder: no cross-built sd-stage.exe yet\n")
        say("no cross-built sd-stage.exe (python native/build.py --target windows): placeholder")
    for name in ("Stepwise.exe", "stepwise-cli.exe"):
        (stage / name).write_bytes(b"placeholder: the Windows bundle is built on Windows\n")
    return stage


def cross_built_engine() -> Path | None:
    argv = [
        sys.executable,
        str(ROOT / "native" / "build.py"),
        "--target",
        "windows",
        "--print-path",
    ]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = result.stdout.strip().splitlines()
    path = Path(lines[-1]) if result.returncode == 0 and lines else None
    return path if path is not None and path.suffix == ".exe" and path.is_file() else None


def nsis(bundle: Path) -> Path:
    makensis = shutil.which("makensis")
    if makensis is None:
        raise SystemExit(
            fail("makensis is missing (Debian: apt-get install nsis; Windows: NSIS 3)")
        )
    if not (bundle / "Stepwise.exe").is_file():
        raise SystemExit(fail(f"{bundle} is not a Windows bundle (no Stepwise.exe)"))
    out = DIST / f"Stepwise-{version()}-setup.exe"
    out.parent.mkdir(parents=True, exist_ok=True)
    flag = "/" if WINDOWS else "-"
    argv = [
        makensis,
        f"{flag}V2",
        f"{flag}DVERSION={version()}",
        f"{flag}DBUNDLE={bundle}",
        f"{flag}DOUTFILE={out}",
        str(NSI),
    ]
    started = time.monotonic()
    subprocess.run(argv, check=True)
    took = time.monotonic() - started
    say(f"installer: {out} ({out.stat().st_size / 1e6:.1f} MB) in {took:.0f} s")
    return out


def wine_test(setup: Path) -> int:
    """Installs and uninstalls silently under wine64 in a fresh prefix; checks what is left."""
    wine = shutil.which("wine64") or shutil.which("wine")
    if wine is None:
        return fail("wine is missing (Debian: apt-get install wine64)")
    prefix = Path(tempfile.mkdtemp(prefix="stepwise-wine-"))
    env = dict(os.environ, WINEPREFIX=str(prefix), WINEDEBUG="-all", WINEDLLOVERRIDES="mshtml=")
    env.pop("DISPLAY", None)

    def run(*args: str) -> None:
        subprocess.run(
            [wine, *args],
            env=env,
            check=True,
            timeout=600,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        subprocess.run(["wineserver", "-w"], env=env, timeout=600)

    started = time.monotonic()
    run("wineboot", "--init")
    say(f"wine prefix ready in {time.monotonic() - started:.0f} s")
    local = next((prefix / "drive_c" / "users").glob("*/AppData/Local"))
    app, data = local / "Programs" / "Stepwise", local / "Stepwise"
    menu = local.parent / "Roaming" / "Microsoft" / "Windows" / "Start Menu" / "Programs"
    checks: list[tuple[str, bool]] = []
    for purge in (False, True):
        run(str(setup), "/S")
        checks.append(("installed Stepwise.exe", (app / "Stepwise.exe").is_file()))
        checks.append(("installed the engine", (app / "_internal" / "sd-stage.exe").is_file()))
        checks.append(("Start-menu entry", (menu / "Stepwise.lnk").is_file()))
        checks.append(("uninstaller", (app / "Uninstall.exe").is_file()))
        (data / "runs").mkdir(parents=True, exist_ok=True)
        (data / "settings.json").write_text("{}")  # the user's data
        run(str(app / "Uninstall.exe"), "/S", *(["/PURGE"] if purge else []))
        checks.append(("program folder removed", not app.exists()))
        checks.append(("Start-menu entry removed", not (menu / "Stepwise.lnk").exists()))
        what = "user data removed with /PURGE" if purge else "user data kept"
        checks.append((what, (not data.exists()) if purge else (data / "settings.json").is_file()))
    for name, ok in checks:
        say(f"{'ok  ' if ok else 'FAIL'} {name}")
    say(f"wine install/uninstall test took {time.monotonic() - started:.0f} s")
    shutil.rmtree(prefix, ignore_errors=True)
    return 0 if all(ok for _, ok in checks) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    parser.add_argument("--engine", type=Path, help="the sd-stage to bundle")
    s = sub.add_parser("smoke", help="run the bundle: --help, selftest, the GUI under Xvfb")
    s.add_argument("--bundle", type=Path, default=DIST / "Stepwise")
    n = sub.add_parser("nsis", help="make the Windows installer with makensis")
    group = n.add_mutually_exclusive_group(required=True)
    group.add_argument("--bundle", type=Path, help="a Windows one-folder bundle")
    group.add_argument("--placeholder", action="store_true", help="a staged stand-in bundle")
    n.add_argument("--wine-test", action="store_true", help="install/uninstall under wine")
    args = parser.parse_args(argv)
    if args.command == "smoke":
        return smoke(args.bundle.resolve())
    if args.command == "nsis":
        bundle = stage_placeholder() if args.placeholder else args.bundle.resolve()
        setup = nsis(bundle)
        return wine_test(setup) if args.wine_test else 0
    build_bundle(find_engine(args.engine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
