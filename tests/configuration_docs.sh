#!/usr/bin/env bash
# docs/configuration.md is generated from the parameter declarations by
# `dlrmsim list --keys --markdown`; this fails (and shows the difference) when the committed
# file is stale. Regenerate with: build/dlrmsim list --keys --markdown > docs/configuration.md
# Usage: configuration_docs.sh DLRMSIM SOURCE_DIR
set -uo pipefail
dlrmsim=${1:?usage: configuration_docs.sh DLRMSIM SOURCE_DIR}
root=${2:?usage: configuration_docs.sh DLRMSIM SOURCE_DIR}
if ! diff -u "$root/docs/configuration.md" <("$dlrmsim" list --keys --markdown); then
  echo "docs/configuration.md is stale: run build/dlrmsim list --keys --markdown > docs/configuration.md" >&2
  exit 1
fi

# One kind at a time; an unknown kind is bad input (exit 2) naming the kinds.
if ! "$dlrmsim" list --keys sweep | grep -q '^axes\.\*\.range\.step  '; then
  echo "list --keys sweep does not list axes.*.range.step" >&2
  exit 1
fi
if "$dlrmsim" list --keys sweep | grep -q '^run\.steps'; then
  echo "list --keys sweep lists scenario keys" >&2
  exit 1
fi
message=$("$dlrmsim" list --keys run 2>&1 >/dev/null)
status=$?
expected="error: list --keys: unknown kind 'run'; expected one of scenario | platform | model | software | sweep"
if [ "$status" -ne 2 ] || [ "$message" != "$expected" ]; then
  echo "list --keys run: exit status $status, message '$message'; expected 2 and '$expected'" >&2
  exit 1
fi
echo "docs/configuration.md is current; list --keys KIND as expected"
