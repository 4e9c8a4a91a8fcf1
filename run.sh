#!/usr/bin/env bash
# Sets up Stepwise (virtual environment, dependencies) if needed, then starts it.
# Arguments are passed on: ./run.sh photo.png opens a picture; ./run.sh run --help for the CLI.
# The first start also installs the Qt window libraries (Debian, as root) and starts building the
# engine sd-stage from source, once, in the background (scripts/setup_env.py): the window opens
# at once and its status bar shows the build's progress; commands that run the engine wait for
# it. Later starts skip both.
set -euo pipefail
# The hints the app prints ("continue with: ./run.sh resume DIR") name the command as typed.
export STEPWISE_PROGRAM="${STEPWISE_PROGRAM:-$0}"
cd "$(dirname "$0")"
. scripts/find-python.sh
"$PY" scripts/setup_env.py app
exec .venv/bin/python -m app "$@"
