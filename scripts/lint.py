"""The fast checks, in seconds: ruff (lint and format), mypy on app/, the import contracts.

Usage: .venv/bin/python scripts/lint.py   (./test.sh runs it before the engine build)
The one owner of these commands: tests/test_code_quality.py and tests/test_architecture.py run
the same ones, and skip them when ./test.sh has just run them (STEPWISE_LINT_PASSED=1).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["app", "tests", "bench", "scripts", "native/build.py"]
# (name, tool, arguments); the tool is found beside the running Python (the venv's bin/Scripts).
CHECKS: list[tuple[str, str, list[str]]] = [
    ("ruff check", "ruff", ["check", *PATHS]),
    ("ruff format", "ruff", ["format", "--check", *PATHS]),
    ("mypy", "mypy", ["app"]),
    ("import contracts", "lint-imports", ["--no-cache"]),
]
PASSED_ENV = "STEPWISE_LINT_PASSED"


def command(tool: str, args: list[str]) -> list[str]:
    return [str(Path(sys.executable).with_name(tool)), *args]


def main() -> int:
    for name, tool, args in CHECKS:
        print(f"[lint] {name}", file=sys.stderr, flush=True)
        if subprocess.run(command(tool, args), cwd=ROOT).returncode != 0:
            print(f"[lint] {name} failed (above); fix it and run ./test.sh again", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
