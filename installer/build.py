#!/usr/bin/env python3
"""The Windows installer, made on Linux (or Windows) from the package registries alone.

    python installer/build.py windows                 dist/Stepwise-<version>-setup.exe; its path
                                                      is the last line on stdout
    python installer/build.py windows --wine-test     ... then installs and runs it in a fresh
                                                      wine 10 prefix and checks what a user gets

The setup .exe holds python.org's embeddable CPython, the pinned win_amd64 wheels, the app, the
cross-built release Vulkan sd-stage.exe and two small launchers (installer/windows_bundle.py);
no Windows code runs while it is made. Needs mingw-w64 and NSIS (Debian: `python
scripts/setup_env.py installer` installs them); the wine test needs root on Debian (a Debian 13
chroot with wine 10, installer/wine_chroot.py). Each part is cached by its inputs.

Why not PyInstaller: it freezes only for the OS it runs on (a Windows Python under wine took
657 s and needs wine at build time); the embeddable layout is made in ~80 s with no Windows code
run, runs the same .py files as a checkout, and is what the wine test checks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "installer"))


def fail(text: str) -> int:
    print(f"installer/build.py: error: {text}", file=sys.stderr)
    return 1


def windows(engine: Path | None, wine_test: bool) -> int:
    import windows_bundle

    try:
        setup = windows_bundle.build(engine)
    except windows_bundle.BundleError as e:
        return fail(str(e))
    if wine_test:
        import wine_test as wine

        code = wine.run(setup)
        if code != 0:
            return code
    print(setup)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("windows", help="the Windows setup .exe (no Windows needed)")
    w.add_argument("--wine-test", action="store_true", help="then test it under wine 10")
    w.add_argument("--engine", type=Path, help="this sd-stage.exe instead of the cross build")
    args = parser.parse_args(argv)
    return windows(args.engine, args.wine_test)


if __name__ == "__main__":
    sys.exit(main())
