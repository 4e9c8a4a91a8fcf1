"""Debian 13's wine 10 in a chroot made from Debian's archive, for the Windows tests on a Debian 12
host (Debian 12's wine 8 opens no window for any Qt >= 6.5). Made once with debootstrap and the
host's own apt mirror, cached by its recipe (suite + packages + RECIPE) under the build cache;
every command runs in a private mount namespace (unshare -m), so no mount outlives it.
Linux, root. Python standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

SUITE = "trixie"
PACKAGES = (
    "wine",
    "wine64",
    "libwine",
    "fonts-wine",
    "mesa-vulkan-drivers",
    "fonts-noto-cjk",
    "xvfb",
    "xauth",
    "x11-apps",
)
RECIPE = "1"  # raise when how the chroot is made changes
DONE = ".stepwise-chroot-done"
HOST_PACKAGES = ("debootstrap",)


class ChrootError(Exception):
    """Why the chroot cannot be made, with the fix."""


def say(text: str) -> None:
    print(f"[wine-chroot] {text}", file=sys.stderr, flush=True)


def cache_root() -> Path:
    from windows_bundle import cache_dir  # the installer's cache folder: its owner

    return cache_dir().parent / "wine"


def key() -> str:
    text = "\n".join([SUITE, RECIPE, *PACKAGES])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def chroot_dir() -> Path:
    return cache_root() / f"{SUITE}-{key()}"


def host_mirror(sources: Path = Path("/etc/apt/sources.list.d")) -> str:
    """The Debian archive this host's apt uses (deb822 .sources or one-line lists), so the chroot
    comes from the same registry as every other package here."""
    texts = [p.read_text(errors="replace") for p in sorted(sources.glob("*.sources"))]
    texts += [p.read_text(errors="replace") for p in sorted(sources.glob("*.list"))]
    legacy = sources.parent / "sources.list"
    if legacy.is_file():
        texts.append(legacy.read_text(errors="replace"))
    for text in texts:
        for uri in re.findall(r"^URIs:\s*(\S+)", text, re.M) + re.findall(
            r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", text, re.M
        ):
            if uri.rstrip("/").endswith("/debian"):
                return uri
    raise ChrootError("no Debian archive in this host's apt sources (/etc/apt/sources.list.d)")


def namespace_argv(root: Path, command: list[str], binds: dict[Path, str]) -> list[str]:
    """unshare + chroot argv running `command` in `root`, with proc/sys/dev and `binds` (host
    path -> path inside, in order) mounted in a mount namespace of its own."""
    mounts = [
        f"mount -t proc proc '{root}/proc'",
        f"mount --rbind /sys '{root}/sys'",
        f"mount --rbind /dev '{root}/dev'",
    ]
    if "/tmp" not in binds.values():
        mounts.append(f"mount -t tmpfs tmpfs '{root}/tmp'")
    for host, inside in binds.items():
        target = f"{root}{inside}"
        mounts.append(f"mkdir -p '{target}' && mount --bind '{host}' '{target}'")
    script = " && ".join(mounts) + ' && exec chroot "$0" "$@"'
    argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(root)]
    return [*argv, *command]


def namespace_env(env: dict[str, str]) -> dict[str, str]:
    clean = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    clean.update(LANG="C.UTF-8", HOME="/root")
    clean.update(env)
    return clean


def in_namespace(
    root: Path, command: list[str], binds: dict[Path, str], env: dict[str, str], **kwargs
) -> subprocess.CompletedProcess:
    """Run `command` chrooted in `root` (namespace_argv) and wait for it."""
    argv = namespace_argv(root, command, binds)
    return subprocess.run(argv, env=namespace_env(env), **kwargs)


def spawn_in_namespace(
    root: Path, command: list[str], binds: dict[Path, str], env: dict[str, str], log: Path
) -> subprocess.Popen:
    """Start `command` chrooted in `root` (namespace_argv); its output goes to `log`."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            namespace_argv(root, command, binds),
            env=namespace_env(env),
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def ensure_chroot() -> Path:
    """The finished chroot (made now when it is not: ~4 min, ~2 GB)."""
    root = chroot_dir()
    if (root / DONE).is_file():
        return root
    if os.geteuid() != 0:
        raise ChrootError("making the wine chroot needs root (debootstrap, chroot, mount)")
    if shutil.which("debootstrap") is None:
        raise ChrootError("debootstrap is missing: apt-get install -y debootstrap")
    with _lock(root.parent / f".{root.name}.lock"):
        if (root / DONE).is_file():
            return root
        started = time.monotonic()
        partial = root.with_name(root.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
        mirror = host_mirror()
        say(f"making a Debian {SUITE} chroot with wine (once; ~4 min, ~2 GB): {root}")
        subprocess.run(
            ["debootstrap", "--variant=minbase", SUITE, str(partial), mirror],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        env = {"DEBIAN_FRONTEND": "noninteractive"}
        install = "apt-get update -qq && apt-get install -y -qq --no-install-recommends "
        install += " ".join(PACKAGES)
        result = in_namespace(partial, ["sh", "-c", install], {}, env, stdout=subprocess.DEVNULL)
        if result.returncode != 0:
            raise ChrootError(f"apt-get install in the {SUITE} chroot exited {result.returncode}")
        for cache in (partial / "var/cache/apt/archives").glob("*.deb"):
            cache.unlink()
        (partial / DONE).write_text(key())
        partial.rename(root)
        say(f"chroot ready in {time.monotonic() - started:.0f} s")
    return root


if __name__ == "__main__":
    print(ensure_chroot())
