#!/usr/bin/env bash
# `dlrmsim completion bash`, end to end: the script it prints lists every command that
# `dlrmsim --help` lists, and, sourced into bash, completes commands, options (long and short)
# and file names the way a user at a prompt sees it. The installed copy (build tree:
# dlrmsim.bash-completion) is the same script.
# Usage: completion_cli.sh DLRMSIM BUILD_DIR
set -euo pipefail
dlrmsim=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$dlrmsim" completion bash >"$tmp/dlrmsim.bash"
cmp -s "$tmp/dlrmsim.bash" "$build/dlrmsim.bash-completion" || fail "the built completion file differs from the command's"
bash -n "$tmp/dlrmsim.bash" || fail "the script is not valid bash"

# Every command of the usage text is in the first word's candidates.
commands=$("$dlrmsim" --help | sed -n 's/^  \([a-z][-a-z]*\) .*/\1/p')
[ "$(wc -l <<<"$commands")" -ge 9 ] || fail "could not read the commands from dlrmsim --help: $commands"

# complete WORDS...: the candidates bash offers for the last word (may be empty). Its output
# is captured before grep reads it: `complete_words ... | grep -q` would fail now and then
# under pipefail, when grep exits at its match before the writer is done (SIGPIPE).
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _dlrmsim; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$tmp/dlrmsim.bash" "$@"
}
first=$(complete_words dlrmsim "")
for c in $commands; do grep -qx "$c" <<<"$first" || fail "command '$c' is not completed: $first"; done
[ "$(complete_words dlrmsim sw)" = "sweep" ] || fail "'sw' does not complete to sweep"
[ "$(complete_words dlrmsim sweep --re)" = "--resume" ] || fail "sweep --re: $(complete_words dlrmsim sweep --re)"
grep -qx -- "-j" <<<"$(complete_words dlrmsim sweep -)" || fail "sweep's short -j is not offered"
grep -qx -- "--set" <<<"$(complete_words dlrmsim run --s)" || fail "run --s does not offer --set"
grep -qx -- "--paths" <<<"$(complete_words dlrmsim list --p)" || fail "list --paths is not offered"
grep -qx -- "--quiet" <<<"$(complete_words dlrmsim validate --q)" || fail "validate --quiet is not offered"
[ "$(complete_words dlrmsim completion b)" = "bash" ] || fail "completion b does not complete to bash"
# File names: for a positional argument and for an option's value.
mkdir "$tmp/d" && touch "$tmp/d/scenario.yaml"
[ "$(complete_words dlrmsim run "$tmp/d/sc")" = "$tmp/d/scenario.yaml" ] || fail "positional file names are not completed"
[ "$(complete_words dlrmsim sweep -o "$tmp/d/sc")" = "$tmp/d/scenario.yaml" ] || fail "an option's file value is not completed"
# A wrong shell is bad input.
if "$dlrmsim" completion zsh 2>/dev/null; then fail "completion zsh succeeded"; else [ $? -eq 2 ] || fail "completion zsh: exit $?"; fi
echo "completion: $(wc -w <<<"$commands") commands and their options complete"
