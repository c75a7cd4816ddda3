#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 10s), one after another. make
# test already runs each target's seed corpus; this searches beyond it. FUZZ, a regular
# expression, picks the targets whose package path or name it matches. An input that fails is
# written by go test under its package's testdata/fuzz/<target>/: committed there, it joins the
# seed corpus that make test runs.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
fuzztime=${FUZZTIME:-10s}
only=${FUZZ:-.}

targets=$($GO test -list '^Fuzz' ./... |
	awk '/^Fuzz/ { names[++n] = $1; next } /^ok/ { for (i = 1; i <= n; i++) print $2, names[i]; n = 0 }' |
	grep -E -- "$only" || true)
if [[ -z $targets ]]; then
	echo "fuzz.sh: no fuzz target matches $only" >&2
	exit 2
fi
echo "fuzzing $(wc -l <<<"$targets") targets for $fuzztime each"
failed=()
while read -r pkg name; do
	echo "== $pkg $name"
	if ! $GO test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "$pkg"; then
		failed+=("$pkg $name")
	fi
done <<<"$targets"
if ((${#failed[@]})); then
	printf 'fuzz.sh: %d targets found failing inputs:\n' "${#failed[@]}"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "fuzz.sh: no failing input found"
