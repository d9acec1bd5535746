#!/usr/bin/env bash
# The error-message suite: every kind of bad input in tests/errors/cases.txt must end
# `dlrmsim` with its documented exit status (2 bad input, 1 infeasible job, 0 for a valid
# input that draws a warning) and print exactly the message in tests/errors/NAME.expected: file, line and column, key path, what
# was expected, and a "did you mean" where it applies.
# Usage: error_messages.sh DLRMSIM SOURCE_DIR [--write]   (--write records the current messages)
set -uo pipefail
dlrmsim=$1
cd "$2" || exit 1
write=${3:-}
failed=0
while IFS='|' read -r expected_exit command; do
  [[ -z "$expected_exit" || "$expected_exit" == \#* ]] && continue
  read -r -a args <<< "$command"
  name=$(basename "${args[1]}" .yaml)
  message=$("$dlrmsim" "${args[@]}" 2>&1 >/dev/null)
  status=$?
  # The source tree's place (a data root named in "not found" messages) is machine-specific.
  message=${message//"$PWD"/SOURCE}
  if [ -n "$write" ]; then
    printf '%s\n' "$message" > "tests/errors/$name.expected"
    continue
  fi
  if [ "$status" -ne "$expected_exit" ]; then
    echo "FAIL $name: exit status $status, expected $expected_exit"
    failed=1
  fi
  if [ "$message" != "$(cat "tests/errors/$name.expected")" ]; then
    echo "FAIL $name: message differs"
    echo "  got:      $message"
    echo "  expected: $(cat "tests/errors/$name.expected")"
    failed=1
  fi
done < tests/errors/cases.txt
[ "$failed" -eq 0 ] && echo "all error messages as expected"
exit "$failed"
