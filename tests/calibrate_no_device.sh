#!/usr/bin/env bash
# dlrmsim-calibrate asked for a CUDA device that is not there (device 999; on a machine
# without a GPU or its driver, any device) ends with exit status 2 and a message saying
# "no CUDA device", before it measures or writes anything. Without a driver it once ended
# with exit status 3 and "cudaSetDevice(ordinal) failed at copies.cu:46". A build without
# CUDA says it has only --cpu, also with exit status 2.
# Usage: calibrate_no_device.sh DLRMSIM-CALIBRATE
set -uo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
message=$("$1" --device 999 -o "$dir/raw.yaml" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne 2 ] || { [[ "$message" != *"no CUDA device 999"* ]] && [[ "$message" != *"no CUDA device:"* ]] &&
                            [[ "$message" != *"built without CUDA"* ]]; }; then
  echo "FAIL exit $status (expected 2), message: $message"
  exit 1
fi
[ -e "$dir/raw.yaml" ] && { echo "FAIL an output was written"; exit 1; }
echo "ok: $message"
