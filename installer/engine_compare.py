"""The Linux engine on a Windows run's inputs: the same bytes out (installer/wine_test.py).

Each engine stage's log in the run folder starts with `# argv: [...]`, the exact command line the
app gave sd-stage.exe. Here the Linux sd-stage runs vae-encode, diffuse and vae-decode with those
arguments, its inputs the Windows run's own files (the prepared photo, the conditioning the
Windows llm-encode wrote, the init latent, the soft mask, the final latent) and its outputs in a
folder of its own; then every output is compared byte for byte with the Windows one.
llm-encode is not compared: the two C libraries' sinf/cosf differ in the RoPE table
(the project's shared Windows facts note), so no byte of conditioning can match across OSes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path, PureWindowsPath

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("vae-encode", "diffuse", "vae-decode")
OUTPUT_FLAGS = {"--save-latent", "--save-ref-latents", "-o", "--checkpoint-dir"}
ARGV_PREFIX = "# argv: "


def linux_engine() -> Path:
    """The Linux sd-stage this checkout built (the tests' build first, else the app's)."""
    for extra in (["--vulkan", "--test-hooks"], ["--test-hooks"], []):
        argv = [sys.executable, str(ROOT / "native" / "build.py"), *extra, "--print-path"]
        result = subprocess.run(argv, capture_output=True, text=True)
        lines = result.stdout.strip().splitlines()
        if result.returncode == 0 and lines:
            return Path(lines[-1])
    raise RuntimeError("no Linux engine is built here (python native/build.py --test-hooks)")


def logged_argv(log: Path) -> list[str]:
    first = log.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    if not first.startswith(ARGV_PREFIX):
        raise RuntimeError(f"{log} does not start with the engine's argv")
    return json.loads(first[len(ARGV_PREFIX) :])


def to_host(arg: str, drive_root: Path, inside: str) -> str:
    """Z:\\w\\... (wine's view of the test folder `inside`) -> the path on this machine."""
    win = PureWindowsPath(arg)
    if win.drive.upper() != "Z:":
        return arg
    parts = win.parts[1:]  # after "Z:\\"
    inside_parts = Path(inside).parts[1:]
    if tuple(parts[: len(inside_parts)]) != inside_parts:
        return arg
    return str(drive_root.joinpath(*parts[len(inside_parts) :]))


def linux_argv(
    windows_argv: list[str], engine: Path, work: Path, inside: str, out: Path
) -> list[str]:
    argv = [str(engine)]
    args = windows_argv[1:]
    for i, arg in enumerate(args):
        if i > 0 and args[i - 1] in OUTPUT_FLAGS:
            argv.append(str(out / PureWindowsPath(arg).name))
        else:
            argv.append(to_host(arg, work, inside))
    return argv


def same(a: Path, b: Path) -> tuple[bool, str]:
    if not a.is_file() or not b.is_file():
        return False, f"missing: {a if not a.is_file() else b}"
    x, y = a.read_bytes(), b.read_bytes()
    if x == y:
        return True, ""
    first = next(
        (i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), min(len(x), len(y))
    )
    return False, f"{a.name}: {len(x)} vs {len(y)} bytes, first difference at byte {first}"


def compare(run_dir: Path, work: Path, inside: str = "/w") -> list[tuple[str, bool, str]]:
    """(what, equal, detail) for each output of the three stages."""
    engine = linux_engine()
    results: list[tuple[str, bool, str]] = []
    out = work / "linux" / run_dir.name
    out.mkdir(parents=True, exist_ok=True)
    for stage in STAGES:
        argv = linux_argv(logged_argv(run_dir / "logs" / f"{stage}.log"), engine, work, inside, out)
        if stage == "diffuse":
            (out / "checkpoints").mkdir(exist_ok=True)
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            results.append((f"{stage} ran on Linux", False, done.stderr[-800:]))
            continue
        if stage == "vae-encode":
            pairs = [("init_latent.bin", "init_latent.bin")]
        elif stage == "diffuse":
            steps = sorted(p.name for p in (run_dir / "checkpoints").glob("step_*.bin"))
            pairs = [(f"checkpoints/{n}", f"checkpoints/{n}") for n in steps]
            pairs.append(("final_latent.bin", "final_latent.bin"))
        else:
            pairs = [("decoded.png", "decoded.png")]
        for windows_name, linux_name in pairs:
            ok, detail = same(run_dir / windows_name, out / linux_name)
            results.append((f"{stage}: {windows_name}", ok, detail))
    return results
