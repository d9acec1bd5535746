#!/usr/bin/env bash
# Installation and the data search path (common/data_paths.hpp), end to end:
#  1. `cmake --install BUILD --prefix P` into an empty temporary prefix, then, from `/`,
#     `P/bin/dlrmsim run P/share/dlrmsim/scenarios/default.yaml` prints the same throughput
#     as the build tree's program on the source tree's scenario (same code, same data);
#  2. `dlrmsim list --paths` shows the installed share directory before the source tree;
#  3. a scenario copied to an unrelated directory, still saying `platform: ../platforms/...`,
#     finds its parts in the installed tree (whose dgx-h100 platform is renamed here to tell
#     it from the source tree's), and DLRMSIM_DATA comes before the installed tree;
#  4. the Debian package (CPack) holds the same tree and runs where it is unpacked.
#  5. `dlrmsim validate` with no folder, run from `/`, finds the installed validation cases
#     (installed and packaged) and evaluates them (exit 0 or 5, never bad input);
#  6. with PYTHON given (the module was built), the installed module runs the installed
#     scenario from `/` and finds the installed data next to itself.
# Usage: install.sh BUILD_DIR SOURCE_DIR [PYTHON]
set -euo pipefail
build=$1
src=$2
python=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset DLRMSIM_DATA

P=$tmp/prefix
mkdir -p "$P"
cmake --install "$build" --prefix "$P" >/dev/null
[ -x "$P/bin/dlrmsim" ] || fail "no $P/bin/dlrmsim after install"
grep -q 'complete .*-F _dlrmsim dlrmsim' "$P/share/bash-completion/completions/dlrmsim" || fail "no bash completion installed"

# 1. From the root directory, the installed program on the installed scenario.
installed=$(cd / && "$P/bin/dlrmsim" run "$P/share/dlrmsim/scenarios/default.yaml") || fail "installed run failed"
reference=$("$build/dlrmsim" run "$src/configs/scenarios/default.yaml")
t_installed=$(grep '^throughput' <<<"$installed")
t_reference=$(grep '^throughput' <<<"$reference")
[ -n "$t_installed" ] && [ "$t_installed" = "$t_reference" ] ||
  fail "installed run: '$t_installed', build tree: '$t_reference'"

# 2. The search path of the installed program.
paths=$(cd / && "$P/bin/dlrmsim" list --paths)
first=$(grep -E '^  (installed|source tree|DLRMSIM_DATA) ' <<<"$paths" | head -1)
[ "$first" = "  installed     $P/share/dlrmsim" ] || fail "list --paths does not start with the installed tree: $paths"

# 3. A scenario elsewhere: parts from the installed tree, then from DLRMSIM_DATA first.
sed -i 's/^name: dgx-h100$/name: dgx-h100-installed/' "$P/share/dlrmsim/platforms/dgx-h100.yaml"
grep -q '^name: dgx-h100-installed$' "$P/share/dlrmsim/platforms/dgx-h100.yaml" || fail "could not rename the platform"
mkdir -p "$tmp/elsewhere/mine" "$tmp/cwd" "$tmp/data/platforms"
cp "$src/configs/scenarios/default.yaml" "$tmp/elsewhere/mine/scenario.yaml"
out=$(cd "$tmp/cwd" && "$P/bin/dlrmsim" run ../elsewhere/mine/scenario.yaml) || fail "a scenario outside the tree did not run"
grep -q '^platform  *dgx-h100-installed$' <<<"$out" || fail "the platform did not come from the installed tree: $out"
sed 's/^name: dgx-h100$/name: dgx-h100-mine/' "$src/configs/platforms/dgx-h100.yaml" >"$tmp/data/platforms/dgx-h100.yaml"
out=$(cd "$tmp/cwd" && DLRMSIM_DATA="$tmp/missing:$tmp/data" "$P/bin/dlrmsim" run ../elsewhere/mine/scenario.yaml) ||
  fail "the scenario did not run with DLRMSIM_DATA"
grep -q '^platform  *dgx-h100-mine$' <<<"$out" || fail "DLRMSIM_DATA did not come first: $out"
paths=$(DLRMSIM_DATA="$tmp/missing:$tmp/data" "$P/bin/dlrmsim" list --paths)
grep -q "^  DLRMSIM_DATA  $tmp/missing  (missing: skipped)$" <<<"$paths" || fail "a missing DLRMSIM_DATA entry is not shown: $paths"

# 4. The Debian package, unpacked anywhere (the share directory is found next to the program).
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb" >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack"; }
deb=$(ls "$tmp"/deb/dlrmsim_*.deb)
grep -q libsimgrid <<<"$(dpkg-deb -f "$deb" Depends)" || fail "the package does not depend on SimGrid"
dpkg-deb -x "$deb" "$tmp/unpacked"
# Its licence where Debian's tools look for it, and its version the program's.
cmp -s "$tmp/unpacked/usr/share/doc/dlrmsim/copyright" "$src/LICENSE" || fail "the package has no copyright file (the licence)"
[ "$(dpkg-deb -f "$deb" Version)" = "$("$tmp/unpacked/usr/bin/dlrmsim" --version | cut -d' ' -f2)" ] ||
  fail "package version $(dpkg-deb -f "$deb" Version) is not the program's"
out=$(cd / && "$tmp/unpacked/usr/bin/dlrmsim" run "$tmp/unpacked/usr/share/dlrmsim/scenarios/default.yaml") ||
  fail "the packaged program did not run"
[ "$(grep '^throughput' <<<"$out")" = "$t_reference" ] || fail "packaged run: $(grep '^throughput' <<<"$out")"

# 5. The installed validation cases, in the installed tree and in the package.
n_cases=$(ls "$src"/validation/cases/*.yaml | wc -l)
[ "$(ls "$P"/share/dlrmsim/validation/cases/*.yaml | wc -l)" -eq "$n_cases" ] || fail "not every validation case is installed"
for tree in "$P" "$tmp/unpacked/usr"; do
  rc=0
  (cd / && "$tree/bin/dlrmsim" validate --match 'dle_dlrm_large_a100_8gpu_amp*' --quiet --json "$tmp/validate.json") >"$tmp/validate.out" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 5 ] || { cat "$tmp/validate.out"; fail "validate in $tree exited with $rc"; }
  grep -q '"case"' "$tmp/validate.json" || fail "validate in $tree evaluated no case"
  grep -q '"failure"' "$tmp/validate.json" && fail "a case could not be evaluated in $tree: $(cat "$tmp/validate.json")"
done

# 6. The Python module, installed beside the programs.
if [ -n "$python" ]; then
  module_dir=$P/lib/python3/dist-packages
  [ -f "$module_dir/dlrmsim/__init__.py" ] || fail "no Python module under $module_dir"
  t_python=$(cd / && PYTHONPATH=$module_dir "$python" -c '
import sys, dlrmsim
print(dlrmsim.run(sys.argv[1])["throughput_samples_per_s"])
print(dlrmsim.run({"name": "x", "platform": "../platforms/dgx-h100.yaml", "model": "../models/dlrm_dcnv2_criteo_4tb.yaml",
                   "training": {"mode": "hybrid_parallel_sync"}})["platform"])' "$P/share/dlrmsim/scenarios/default.yaml") ||
    fail "the installed Python module did not run"
  t_cli=$("$P/bin/dlrmsim" run "$P/share/dlrmsim/scenarios/default.yaml" --json - | "$python" -c 'import json,sys; print(json.load(sys.stdin)["throughput_samples_per_s"])')
  [ "$(head -1 <<<"$t_python")" = "$t_cli" ] || fail "installed module: $(head -1 <<<"$t_python"), program: $t_cli"
  [ "$(tail -1 <<<"$t_python")" = "dgx-h100-installed" ] || fail "the module's dict scenario did not find the installed platform: $t_python"
fi
echo "install: prefix and package run from / with $t_installed"
