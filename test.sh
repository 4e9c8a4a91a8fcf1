#!/usr/bin/env bash
# Sets up everything the tests need (virtual environment, system packages, the native engine
# sd-stage built from source), then runs the whole test suite and, on Linux as root, the
# Windows installer's wine test. Arguments go to pytest (and skip the wine test).
# `./test.sh fast [ARGS]`: the venv and the lint only (no system packages, no engine build) and
# the tests marked neither `slow` nor `engine` (pyproject.toml) — a few minutes.
# The fast checks (ruff, mypy, the import contracts) run as soon as the venv is ready, before
# the system packages and the engine build, so a lint failure shows in seconds.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/find-python.sh
fast=0
if [ "${1:-}" = fast ]; then fast=1; shift; fi
"$PY" scripts/setup_env.py test venv
.venv/bin/python scripts/lint.py
export STEPWISE_LINT_PASSED=1  # the suite skips the lint tests it would repeat
export QT_QPA_PLATFORM=offscreen
if [ "$fast" = 1 ]; then
  export STEPWISE_FAST_TIER=1  # tests/conftest.py: an unmarked engine test fails plainly
  exec .venv/bin/python -m pytest -n "${STEPWISE_TEST_WORKERS:-auto}" --dist loadscope \
    -m "not slow and not engine" "$@"
fi
"$PY" scripts/setup_env.py test
# One worker per core (pytest-xdist), a test module's tests in one worker (its module fixtures
# made once); STEPWISE_TEST_WORKERS=0 runs them all in this process.
PYTEST=(.venv/bin/python -m pytest -n "${STEPWISE_TEST_WORKERS:-auto}" --dist loadscope)
if [ "$#" -gt 0 ]; then
    exec "${PYTEST[@]}" "$@"  # arguments: pytest only, as asked
fi
"${PYTEST[@]}" --durations=10  # the ten slowest tests, for the closing note's before/after
# The whole run goes on to Windows, the user's platform: the setup .exe made here from the
# registries and tested in a fresh wine 10 prefix (installer/build.py windows --wine-test; the
# cross-built engine and the wine chroot are cached). Linux as root only (debootstrap, chroot);
# STEPWISE_WINE_TEST=0 skips it.
if [ "${STEPWISE_WINE_TEST:-1}" = 0 ]; then
    echo "[test] STEPWISE_WINE_TEST=0: the Windows installer's wine test is skipped"
elif [ "$(uname -s)" != Linux ] || [ "$(id -u)" != 0 ]; then
    echo "[test] the Windows installer's wine test needs Linux and root: skipped"
else
    "$PY" scripts/setup_env.py installer
    .venv/bin/python installer/build.py windows --wine-test
fi
