#!/usr/bin/env bash
# gotest.sh ARGS...: go test ARGS, its output as usual, then the slowest packages (the elapsed
# time go test reports for each) and the run's own wall time. Exits with go test's status.
# SLOWEST sets how many packages are listed (default 10).
#
# Tests keep their temporary files (embedded stores, ingested drops, browser profiles) under
# TMPDIR, and the embedded store syncs what it writes: on a disk that costs the run much of its
# system time, and nothing there outlives the test that wrote it. So unless the caller set
# TMPDIR, the run keeps them in memory when the machine has a memory file system with room
# (/dev/shm with SHM_MIN_FREE_GIB free, default 2), in a directory removed when the run ends.
# PROVIDERDIR_DISK_TMPDIR then names the disk directory TMPDIR would have been, for the tests
# that need a disk's page cache.
set -uo pipefail
log=$(mktemp)
scratch=
trap 'rm -f "$log"; [ -n "$scratch" ] && rm -rf "$scratch"' EXIT
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	free_kib=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
	if [ "${free_kib:-0}" -ge $((${SHM_MIN_FREE_GIB:-2} * 1024 * 1024)) ] &&
		scratch=$(mktemp -d /dev/shm/providerdir-test.XXXXXX); then
		export PROVIDERDIR_DISK_TMPDIR=/tmp TMPDIR=$scratch
		echo "temporary files of the tests: $scratch (memory)"
	fi
fi
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
