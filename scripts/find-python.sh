# Sourced by run.sh and test.sh: sets PY to a Python >= 3.12 interpreter, or explains how to get one.
find_python() {
  local candidates=("${STEPWISE_PYTHON:-}" python3.13 python3.12)
  if command -v pyenv >/dev/null 2>&1; then
    local root; root=$(pyenv root)
    for v in "$root"/versions/3.1[2-9]*; do
      [ -x "$v/bin/python3" ] && candidates+=("$v/bin/python3")
    done
  fi
  candidates+=(python3 python)
  local c
  for c in "${candidates[@]}"; do
    [ -n "$c" ] || continue
    command -v "$c" >/dev/null 2>&1 || continue
    # pyenv shims exist for versions that are not selected: ask the interpreter itself.
    if "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
      PY=$(command -v "$c"); return 0
    fi
  done
  echo "Stepwise needs Python 3.12 or newer, and none was found." >&2
  echo "Install it (python.org, your package manager, or 'pyenv install 3.12'), or set STEPWISE_PYTHON=/path/to/python3.12." >&2
  return 1
}
find_python
