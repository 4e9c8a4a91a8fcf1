"""`installer/build.py windows --wine-test`: the setup .exe as a Windows user gets it, in a fresh
wine 10 prefix (Debian 13's wine, in the chroot of installer/wine_chroot.py):

 1. silent install (files, Start-menu entry, uninstaller);
 2. `stepwise-cli.exe selftest`; a hint names `stepwise-cli.exe`; `status` on a folder that is
    no run exits 2 with JSON;
 3. a staged run with tiny models in a non-ASCII folder (模型 é), its output piped; then the
    Linux engine runs vae-encode, diffuse and vae-decode on the same inputs and the Windows
    run's conditioning, and every output (init latent, each step's checkpoint, the final latent,
    the decoded picture) must be byte-identical (llm-encode itself differs across OSes: the C
    libraries' sinf/cosf in the RoPE table: the project's shared Windows facts note);
 4. the same job again, the whole prefix killed (wineserver -k, as a power cut) once two steps
    are saved, then `resume`: the saved steps are not written again and the result is the
    uninterrupted run's, byte for byte;
 5. `sd-stage.exe --list-devices` shows Mesa's lavapipe through winevulkan, and a run on it
    (vulkan0) finishes;
 6. the GUI in English and in 简体中文 under Xvfb: a screenshot that is not blank
    (build/wine-test/gui-en.png, gui-zh.png);
 7. silent uninstall: the program and its Start-menu entry go, the user's data stays.

The icuuc.dll stand-in (installer/windows/icuuc_stub.py) is written into this prefix only.
The prefix (build/wine-test/box) is removed at the end (STEPWISE_KEEP_WINE_BOX=1 keeps it).
Linux, root. Prints one line per check; exit 0 when all pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import wine_chroot
from screen import Xvfb, blank, grab, save_png

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "installer" / "windows"))
OUT = ROOT / "build" / "wine-test"
INSIDE = "/w"  # the test folder inside the chroot (Z:\w for wine)
FOLDER = "模型 é"  # a non-ASCII folder: the ANSI code page cannot spell it
STEPS = 6
SIZE = (96, 80)
KILL_AFTER_STEP = 2
GUI_WAIT_S = 240.0
CALL_TIMEOUT_S = 900
WINE_ENV = {
    "WINEPREFIX": f"{INSIDE}/prefix",
    "WINEDEBUG": "-all",
    "WINEDLLOVERRIDES": "mshtml=;mscoree=;winemenubuilder.exe=d",
    "GGML_VK_VISIBLE_DEVICES": "0",  # ggml skips CPU-type Vulkan devices: lavapipe is one
    "USER": "stepwise",
}


def say(text: str) -> None:
    print(f"[wine-test] {text}", flush=True)


class Box:
    """The chroot, this test's folder bound at /w, and a wine prefix in it."""

    def __init__(self, root: Path, work: Path, display: str | None = None) -> None:
        self.root, self.work, self.display = root, work, display
        self.checks: list[tuple[str, bool, str]] = []

    def binds(self) -> dict[Path, str]:
        binds = {self.work: INSIDE, self.work / "tmp": "/tmp"}
        if self.display:
            binds[Path("/tmp/.X11-unix")] = "/tmp/.X11-unix"
        return binds

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(WINE_ENV, HOME=f"{INSIDE}/home")
        if self.display:
            env["DISPLAY"] = self.display
        return {**env, **(extra or {})}

    def sh(
        self,
        script: str,
        *args: str,
        extra: dict[str, str] | None = None,
        timeout: float = CALL_TIMEOUT_S,
    ) -> subprocess.CompletedProcess[bytes]:
        """`script` (sh) inside the chroot; waits for the prefix's wineserver to end."""
        command = ["sh", "-c", script + "\nrc=$?; wineserver -w; exit $rc", "sh", *args]
        return wine_chroot.in_namespace(
            self.root,
            command,
            self.binds(),
            self.env(extra),
            capture_output=True,
            timeout=timeout,
        )

    def wine(
        self, *args: str, extra: dict[str, str] | None = None, timeout: float = CALL_TIMEOUT_S
    ) -> subprocess.CompletedProcess[bytes]:
        return self.sh('wine "$@"', *args, extra=extra, timeout=timeout)

    def popen(self, *args: str, extra: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        command = ["sh", "-c", 'exec wine "$@"', "sh", *args]
        log = OUT / "wine-output.log"
        return wine_chroot.spawn_in_namespace(
            self.root, command, self.binds(), self.env(extra), log
        )

    def kill_all(self) -> None:
        """Every Windows process of the prefix ends at once (a power cut, as far as files go)."""
        self.sh("wineserver -k", timeout=120)

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        self.checks.append((name, ok, detail))
        say(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
        return ok

    def host(self, windows_path: str) -> Path:
        """A C:\\ path of the prefix on this machine."""
        drive, _, rest = windows_path.partition(":\\")
        assert drive.upper() == "C"
        return self.work / "prefix" / "drive_c" / Path(*rest.split("\\"))

    def win(self, host_path: Path) -> str:
        """The Z:\\ path wine sees for a file of the test folder."""
        return "Z:" + (INSIDE + "/" + host_path.relative_to(self.work).as_posix()).replace(
            "/", "\\"
        )


def tail(result: subprocess.CompletedProcess[bytes], n: int = 1500) -> str:
    text = (result.stdout or b"").decode("utf-8", "replace") + (result.stderr or b"").decode(
        "utf-8", "replace"
    )
    return text[-n:]


# -- the steps ----------------------------------------------------------------------------------

LOCAL = "C:\\users\\stepwise\\AppData\\Local"
PROGRAM = LOCAL + "\\Programs\\Stepwise"
DATA = LOCAL + "\\Stepwise"
MENU = "C:\\users\\stepwise\\AppData\\Roaming\\Microsoft\\Windows\\Start Menu\\Programs"


def step_prefix(box: Box) -> None:
    started = time.monotonic()
    result = box.wine("wineboot", "-i", timeout=600)
    box.check("fresh wine prefix", result.returncode == 0, tail(result))
    say(f"prefix made in {time.monotonic() - started:.0f} s")


def step_install(box: Box, setup: Path) -> None:
    shutil.copy2(setup, box.work / "setup.exe")
    started = time.monotonic()
    result = box.wine(box.win(box.work / "setup.exe"), "/S", timeout=900)
    program = box.host(PROGRAM)
    box.check("silent install exits 0", result.returncode == 0, tail(result))
    for name in (
        "Stepwise.exe",
        "stepwise-cli.exe",
        "Uninstall.exe",
        "python/python.exe",
        "engine/sd-stage.exe",
        "app/__main__.py",
    ):
        box.check(f"installed {name}", (program / name).is_file())
    box.check("Start-menu entry", (box.host(MENU) / "Stepwise.lnk").is_file())
    say(f"installed in {time.monotonic() - started:.0f} s")
    # Windows 10 1703+ has icuuc.dll in System32; wine has none: the stand-in, this prefix only.
    import icuuc_stub

    qt6core = program / "python" / "Lib" / "site-packages" / "PySide6" / "Qt6Core.dll"
    system32 = box.host("C:\\windows\\system32")
    icuuc_stub.build(qt6core, system32 / "icuuc.dll")


def cli(
    box: Box, *args: str, timeout: float = CALL_TIMEOUT_S
) -> subprocess.CompletedProcess[bytes]:
    # stdout and stderr are pipes here: what a redirected or piped console gets.
    return box.wine(f"{PROGRAM}\\stepwise-cli.exe", *args, timeout=timeout)


def step_selftest(box: Box) -> None:
    started = time.monotonic()
    result = cli(box, "selftest")
    ok = result.returncode == 0 and b"Traceback" not in result.stderr
    box.check("stepwise-cli.exe selftest", ok, tail(result))
    say(f"selftest took {time.monotonic() - started:.0f} s")


def step_hints_and_codes(box: Box, folder: Path) -> None:
    """What a user types on Windows: a hint names `stepwise-cli.exe` (app/core/program.py finds
    the installed layout), and a folder that is no run is a bad command line (exit 2, JSON)."""
    result = cli(box, "queue", "resume")
    out = tail(result)
    box.check(
        "a hint names stepwise-cli.exe",
        result.returncode == 0 and "stepwise-cli.exe queue run" in out and "python -m" not in out,
        out,
    )
    empty = folder / "not a run"
    empty.mkdir(exist_ok=True)
    result = cli(box, "status", box.win(empty), "--json")
    try:
        said = json.loads(result.stdout.decode("utf-8"))
    except ValueError:
        said = {}
    box.check(
        "status on a folder that is no run: exit 2 and JSON",
        result.returncode == 2 and said.get("exit_code") == 2,
        tail(result),
    )


def make_inputs(folder: Path) -> dict[str, Path]:
    """Tiny models, a photo and a mask in `folder` (made by the app's own generator)."""
    import numpy as np
    from PIL import Image

    from app.engine.tiny_models import generate_models

    models = generate_models(folder / "models")
    w, h = SIZE
    rng = np.random.default_rng(7)
    photo = (rng.random((h, w, 3)) * 255).astype(np.uint8)
    mask = np.zeros((h, w), np.uint8)
    mask[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4] = 255
    Image.fromarray(photo).save(folder / "photo.png")
    Image.fromarray(mask).save(folder / "mask.png")
    return {
        "dit": Path(models.diffusion),
        "llm": Path(models.llm),
        "vae": Path(models.vae),
        "photo": folder / "photo.png",
        "mask": folder / "mask.png",
    }


def run_args(box: Box, files: dict[str, Path], run_dir: Path, device: str = "cpu") -> list[str]:
    return [
        "run",
        "-i",
        box.win(files["photo"]),
        "--mask",
        box.win(files["mask"]),
        "-p",
        "a red apple",
        "--diffusion-model",
        box.win(files["dit"]),
        "--llm",
        box.win(files["llm"]),
        "--vae",
        box.win(files["vae"]),
        "--steps",
        str(STEPS),
        "--seed",
        "42",
        "--threads",
        "1",
        "--llm-device",
        "cpu",
        "--diffusion-device",
        device,
        "--vae-device",
        device,
        "--run-dir",
        box.win(run_dir),
    ]


def step_staged_run(box: Box, files: dict[str, Path], run_dir: Path) -> bool:
    started = time.monotonic()
    result = cli(box, *run_args(box, files, run_dir))
    out = result.stdout.decode("utf-8", "replace")
    ok = result.returncode == 0 and (run_dir / "result.png").is_file()
    box.check(f"a staged run in '{FOLDER}', output piped", ok, tail(result))
    box.check("the piped output names the non-ASCII folder", FOLDER in out, out[-500:])
    say(f"staged run took {time.monotonic() - started:.0f} s")
    return ok


def step_same_bytes(box: Box, run_dir: Path, files: dict[str, Path]) -> None:
    """The Linux engine on the Windows run's inputs and conditioning: the same bytes."""
    import engine_compare

    for name, ok, detail in engine_compare.compare(run_dir, box.work):
        box.check(f"same bytes as the Linux engine: {name}", ok, detail)


def step_kill_and_resume(box: Box, files: dict[str, Path], reference: Path, run_dir: Path) -> None:
    checkpoints = run_dir / "checkpoints"
    saved = checkpoints / f"step_{KILL_AFTER_STEP:03d}.bin"
    proc = box.popen(f"{PROGRAM}\\stepwise-cli.exe", *run_args(box, files, run_dir))
    deadline = time.monotonic() + CALL_TIMEOUT_S
    while not saved.is_file() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    box.kill_all()
    proc.wait(120)
    finished = (run_dir / "result.png").is_file()
    box.check(
        f"killed after step {KILL_AFTER_STEP}, before the end", saved.is_file() and not finished
    )
    kept = {
        p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in checkpoints.glob("step_*.bin")
    }
    result = cli(box, "resume", box.win(run_dir))
    box.check("resume after the kill exits 0", result.returncode == 0, tail(result))
    again = {p.name: p.stat().st_mtime_ns for p in checkpoints.glob("step_*.bin")}
    rewritten = [n for n, (mtime, _) in kept.items() if again.get(n) != mtime]
    box.check("no saved step recomputed", not rewritten and bool(kept), f"rewritten: {rewritten}")
    for name in ("final_latent.bin", "result.png"):
        a, b = reference / name, run_dir / name
        same = a.is_file() and b.is_file() and a.read_bytes() == b.read_bytes()
        box.check(f"resumed {name} equals the uninterrupted run's", same)


def step_vulkan(box: Box, files: dict[str, Path], run_dir: Path) -> None:
    result = box.wine(f"{PROGRAM}\\engine\\sd-stage.exe", "--list-devices", timeout=300)
    text = result.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        devices = json.loads(text[-1]) if text else []
    except json.JSONDecodeError:
        devices = []
    vulkan = [d for d in devices if str(d.get("name", "")).lower().startswith("vulkan")]
    lavapipe = [d for d in vulkan if "llvmpipe" in str(d.get("description", "")).lower()]
    box.check("--list-devices shows lavapipe", bool(lavapipe), tail(result))
    if not lavapipe:
        return
    result = cli(box, *run_args(box, files, run_dir, device="vulkan0"))
    box.check("a run on vulkan0 (lavapipe) finishes", result.returncode == 0, tail(result))


def step_gui(box: Box, language: str, shot: Path) -> None:
    from app.core.settings import Settings, save_settings

    settings = box.host(DATA) / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    save_settings(settings, Settings(language=language))
    proc = box.popen(f"{PROGRAM}\\Stepwise.exe")
    picture = None
    deadline = time.monotonic() + GUI_WAIT_S
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(2.0)
            grabbed = grab(box.display)
            if grabbed is not None and not blank(grabbed):
                time.sleep(5.0)  # let the window finish laying out before the picture kept
                picture = grab(box.display)
                break
    finally:
        box.kill_all()
        proc.wait(120)
    if picture is not None:
        save_png(picture, shot)
    box.check(
        f"the GUI opens in {language} (not blank: {shot.name})",
        picture is not None and not blank(picture),
    )


def step_uninstall(box: Box) -> None:
    data = box.host(DATA)
    before = sorted(p.relative_to(data) for p in data.rglob("*") if p.is_file())
    result = box.wine(f"{PROGRAM}\\Uninstall.exe", "/S", timeout=600)
    box.check("silent uninstall exits 0", result.returncode == 0, tail(result))
    deadline = time.monotonic() + 60
    while box.host(PROGRAM + "\\Stepwise.exe").exists() and time.monotonic() < deadline:
        time.sleep(0.5)  # the uninstaller runs a copy of itself from %TEMP%
    box.check("program removed", not box.host(PROGRAM + "\\python").exists())
    box.check("Start-menu entry removed", not (box.host(MENU) / "Stepwise.lnk").exists())
    after = sorted(p.relative_to(data) for p in data.rglob("*") if p.is_file())
    box.check(
        f"the user's data kept ({len(before)} files: settings, runs, caches, logs)",
        bool(before) and after == before,
        f"{len(before)} before, {len(after)} after",
    )


# -- the whole test ----------------------------------------------------------------------------


def run(setup: Path) -> int:
    started = time.monotonic()
    try:
        root = wine_chroot.ensure_chroot()
    except (wine_chroot.ChrootError, subprocess.CalledProcessError) as e:
        print(f"installer/build.py: error: the wine 10 chroot: {e}", file=sys.stderr)
        return 1
    work = OUT / "box"
    shutil.rmtree(work, ignore_errors=True)
    for sub in ("tmp", "home", "linux"):
        (work / sub).mkdir(parents=True)
    (work / "tmp").chmod(0o1777)
    xvfb = Xvfb() if shutil.which("Xvfb") and shutil.which("xwd") else None
    box = Box(root, work, xvfb.display if xvfb else None)
    folder = work / FOLDER
    folder.mkdir()
    steps: list[tuple[str, Callable[[], object]]] = []
    files: dict[str, Path] = {}
    runs = folder / "runs"
    steps.append(("prefix", lambda: step_prefix(box)))
    steps.append(("install", lambda: step_install(box, setup)))
    steps.append(("selftest", lambda: step_selftest(box)))
    steps.append(("hints and exit codes", lambda: step_hints_and_codes(box, folder)))
    steps.append(("inputs", lambda: files.update(make_inputs(folder))))
    steps.append(("staged run", lambda: step_staged_run(box, files, runs / "a")))
    steps.append(("same bytes", lambda: step_same_bytes(box, runs / "a", files)))
    steps.append(
        ("kill + resume", lambda: step_kill_and_resume(box, files, runs / "a", runs / "b"))
    )
    steps.append(("vulkan", lambda: step_vulkan(box, files, runs / "vk")))
    if xvfb is not None:
        steps.append(("gui en", lambda: step_gui(box, "en", OUT / "gui-en.png")))
        steps.append(("gui zh", lambda: step_gui(box, "zh_CN", OUT / "gui-zh.png")))
    else:
        box.check("the GUI check needs Xvfb and xwd (apt-get install xvfb x11-apps)", False)
    steps.append(("uninstall", lambda: step_uninstall(box)))
    try:
        for name, step in steps:
            t0 = time.monotonic()
            try:
                step()
            except Exception as e:  # a step that breaks is a failed check, and the rest still run
                box.check(f"{name} ran", False, f"{type(e).__name__}: {e}")
            say(f"-- {name}: {time.monotonic() - t0:.0f} s")
    finally:
        if xvfb is not None:
            xvfb.close()
        if os.environ.get("STEPWISE_KEEP_WINE_BOX") != "1":
            # The prefix links z: to / (a loop for any tool that walks the checkout following
            # links); the log and the screenshots stay in build/wine-test.
            shutil.rmtree(work, ignore_errors=True)
    failed = [name for name, ok, _ in box.checks if not ok]
    say(f"took {time.monotonic() - started:.0f} s; failed: {', '.join(failed) or 'none'}")
    print(f"wine-test: {len(box.checks) - len(failed)} passed, {len(failed)} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":  # the test alone, on a setup .exe made earlier
    sys.exit(run(Path(sys.argv[1]).resolve()))
