#!/usr/bin/env bash
# Creates the virtual environment .venv at the repository root and installs the Python packages
# the tests need (tests/python/requirements.txt). Idempotent: when .venv already holds exactly
# what the requirements file asked for, it prints nothing and returns at once.
#   scripts/python_env.sh           # then: .venv/bin/python ...
#   EMBER_VENV=/elsewhere scripts/python_env.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${EMBER_VENV:-$root/.venv}
requirements=$root/tests/python/requirements.txt
stamp=$venv/.ember-requirements

# NB: the stamp holds a copy of the requirements it was built from; a changed file reinstalls.
if [[ -x $venv/bin/python && -f $stamp ]] && cmp -s "$requirements" "$stamp"; then
  exit 0
fi

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python_env: python3's venv module is missing; installing it" >&2
  "$root/scripts/install_deps.sh" python
fi

if [[ ! -x $venv/bin/python ]]; then
  echo "python_env: creating $venv"
  python3 -m venv "$venv"
fi
echo "python_env: installing $(grep -v '^\s*#' "$requirements" | grep -v '^\s*$' | tr '\n' ' ')"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$stamp"
