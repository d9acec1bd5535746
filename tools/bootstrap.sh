#!/usr/bin/env bash
# Installs the Debian 12 packages dlrmsim needs (only those missing), then configures and
# builds it in build/ (Release). Safe to run again: it only redoes what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make pkg-config libsimgrid-dev libyaml-cpp-dev libboost-graph-dev
          libboost-program-options-dev libeigen3-dev doctest-dev libopenmpi-dev openmpi-bin
          nlohmann-json3-dev librsvg2-dev dpkg-dev pybind11-dev python3-dev
          python3-pandas)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

jobs=$(nproc 2>/dev/null || echo 2)
# Debian's Python, whose modules the packages above install (python3-pandas for
# dlrmsim.to_dataframe), even where another python3 comes first on PATH.
python_args=()
[ -x /usr/bin/python3 ] && python_args=(-DPython_EXECUTABLE=/usr/bin/python3)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${python_args[@]}" >&2
cmake --build build -j"$jobs" >&2
