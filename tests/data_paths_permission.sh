#!/usr/bin/env bash
# A data root whose platforms/ folder cannot be read (mode 000, the command run as an
# unprivileged user: root reads through any mode) is not taken for a root without the file:
# the scenario's platform reference resolves there and reading it fails with "Permission
# denied" (exit status 2), naming the path. It once fell through to the shipped file and ran
# a platform other than the one meant, silently, with exit status 0.
# The same for a calibration folder and for validate's directory of cases.
# Usage: data_paths_permission.sh DLRMSIM SOURCE_DIR
set -uo pipefail
dlrmsim=$1
src=$2
# as_user COMMAND...: runs COMMAND where permissions apply: as the unprivileged user nobody
# when this script runs as root, else as the current user.
as_user() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
  else
    "$@"
  fi
}
if [ "$(id -u)" -eq 0 ] && ! command -v setpriv >/dev/null; then
  echo "running as root without setpriv: permissions cannot be checked; skipped"
  exit 0
fi
dir=$(mktemp -d)
trap 'chmod -R u+rwx "$dir"; rm -rf "$dir"' EXIT
mkdir -p "$dir/data/platforms" "$dir/scenarios"
cp "$src/configs/platforms/dgx-h100.yaml" "$dir/data/platforms/dgx-h100.yaml"
cat > "$dir/scenarios/s.yaml" <<YAML
name: s
platform: ../platforms/dgx-h100.yaml
model: $src/configs/models/dlrm_dcnv2_criteo_4tb.yaml
training: {mode: hybrid_parallel_sync}
placement: {policy: cost_greedy, tiers: [gpu_hbm]}
run: {warmup_steps: 1, steps: 1, calibration: $src/configs/calibration}
YAML
chmod 000 "$dir/data/platforms"
chmod 755 "$dir" "$dir/data" "$dir/scenarios"
chmod 644 "$dir/scenarios/s.yaml"
message=$(DLRMSIM_DATA="$dir/data" as_user "$dlrmsim" place "$dir/scenarios/s.yaml" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne 2 ] || [[ "$message" != *"$dir/data/platforms/dgx-h100.yaml"*"Permission denied"* ]]; then
  echo "FAIL exit $status (expected 2 and the unreadable path with 'Permission denied'): $message"
  exit 1
fi
echo "ok: $message"

# A calibration folder that cannot be searched: its profiles are not "absent" (the run once
# went on without them); reading one says permission denied, exit status 2.
mkdir "$dir/calibration"
cp "$src/configs/calibration/"*.yaml "$dir/calibration/"
chmod 600 "$dir/calibration"
sed "s#calibration: $src/configs/calibration#calibration: $dir/calibration#; s#platform: ../platforms/dgx-h100.yaml#platform: $src/configs/platforms/dgx-h100.yaml#" \
  "$dir/scenarios/s.yaml" > "$dir/scenarios/c.yaml"
chmod 644 "$dir/scenarios/c.yaml"
message=$(as_user "$dlrmsim" run "$dir/scenarios/c.yaml" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne 2 ] || [[ "$message" != *"$dir/calibration/"*"Permission denied"* ]]; then
  echo "FAIL a calibration folder without permission: exit $status (expected 2): $message"
  exit 1
fi
echo "ok: $message"

# validate on a directory of cases that cannot be listed: bad input (exit status 2) naming
# it and the reason, not "internal error: filesystem error" (exit status 3).
mkdir "$dir/cases"
chmod 300 "$dir/cases"
message=$(as_user "$dlrmsim" validate "$dir/cases" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne 2 ] || [[ "$message" != *"$dir/cases: cannot list the validation cases: Permission denied"* ]]; then
  echo "FAIL validate on an unlistable directory: exit $status (expected 2): $message"
  exit 1
fi
echo "ok: $message"
