#!/usr/bin/env bash
# Sets up Stepwise (virtual environment, dependencies) if needed, then starts it.
# Arguments are passed on: ./run.sh photo.png opens a picture; ./run.sh run --help for the CLI.
# The first start also installs the Qt window libraries (Debian, as root) and builds the engine
# sd-stage from source once (minutes; scripts/setup_env.py says so and shows the compiler's
# progress); later starts skip both.
set -euo pipefail
# The hints the app prints ("continue with: ./run.sh resume DIR") name the command as typed.
export STEPWISE_PROGRAM="${STEPWISE_PROGRAM:-$0}"
cd "$(dirname "$0")"
. scripts/find-python.sh
"$PY" scripts/setup_env.py app
exec .venv/bin/python -m app "$@"
