#!/usr/bin/env bash
# gotest.sh ARGS...: go test ARGS, its output as usual, then the slowest packages (the elapsed
# time go test reports for each) and the run's own wall time. Exits with go test's status.
# SLOWEST sets how many packages are listed (default 10).
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
${GO:-go} test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
wall=$(($(date +%s) - start))
echo
echo "slowest packages (seconds):"
# Result lines: "ok  <pkg> 12.345s", "FAIL <pkg> 1.2s", "ok <pkg> (cached)" has no time.
awk '($1 == "ok" || $1 == "FAIL") && $3 ~ /^[0-9.]+s$/ { sub(/s$/, "", $3); printf "%8.1f  %s%s\n", $3, $2, ($1 == "FAIL" ? "  FAIL" : "") }' "$log" |
	sort -rn | head -n "${SLOWEST:-10}"
printf 'go test wall time: %dm%02ds\n' $((wall / 60)) $((wall % 60))
exit "$status"
