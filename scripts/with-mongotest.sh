#!/usr/bin/env bash
# with-mongotest.sh CMD...: run CMD with MONGODB_URI naming a MongoDB-protocol server. When the
# caller already set MONGODB_URI, that server is used as is; otherwise scripts/mongotest.sh starts
# the private FerretDB-on-PostgreSQL server and stops it again when CMD ends, whatever its status.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -n ${MONGODB_URI:-} ]]; then
	exec "$@"
fi
# A server that was already running (a developer's) is left running; one started here is stopped
# and its state directory (PostgreSQL's cluster, about 100 MB) deleted.
started=1
if "$here/mongotest.sh" status >/dev/null 2>&1; then
	started=0
fi
eval "$("$here/mongotest.sh" start)"
if ((started)); then
	trap '"$here/mongotest.sh" purge >/dev/null 2>&1 || true' EXIT
fi
"$@"
