#!/usr/bin/env bash
# Installs the Debian packages Tessel needs to build and test, if any is missing.
# Runs apt-get as root (directly, or through sudo when available).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libfmt-dev libcli11-dev nlohmann-json3-dev libgtest-dev libsqlite3-dev libmimalloc-dev
  python3 python3-numpy
  opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo oclgrind
  graphviz
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "tessel: installing missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "tessel: need root to install: ${missing[*]} (run: apt-get install ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
