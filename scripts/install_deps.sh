#!/usr/bin/env bash
# Installs the Debian packages Ember needs, only those missing, so a fresh machine can run
# `make test` and `make demo`. Groups: base (always), plus any of: python data fuzz.
#   scripts/install_deps.sh            # base build + tests
#   scripts/install_deps.sh data fuzz  # and the Fashion-MNIST data set and clang's libFuzzer
set -euo pipefail

base=(cmake ninja-build g++ make libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
      nlohmann-json3-dev libxxhash-dev pkg-config libcli11-dev libminizip-dev
      libabsl-dev libcereal-dev libdnnl-dev libgloo-dev)
declare -A groups=(
  [python]="python3-dev python3-venv pybind11-dev"
  [data]="dataset-fashion-mnist"
  [fuzz]="clang libclang-rt-14-dev"
)

wanted=("${base[@]}")
for group in "$@"; do
  [[ -n "${groups[$group]:-}" ]] || { echo "install_deps: unknown group '$group'" >&2; exit 2; }
  read -r -a extra <<<"${groups[$group]}"
  wanted+=("${extra[@]}")
done

missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install_deps: installing ${missing[*]}"
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
