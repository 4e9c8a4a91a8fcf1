#!/usr/bin/env bash
# Sets up everything the tests need (virtual environment, system packages, the native engine
# sd-stage built from source), then runs the whole test suite. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/find-python.sh
"$PY" scripts/setup_env.py test
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest "$@"
