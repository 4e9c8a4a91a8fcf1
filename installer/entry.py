"""The bundle's entry point (PyInstaller runs this file, not `python -m app`)."""

from __future__ import annotations

import sys

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
