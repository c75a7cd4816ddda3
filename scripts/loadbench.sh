#!/usr/bin/env bash
# loadbench.sh: the load harness of `make bench`. It loads a synthetic drop of $BENCH_PROVIDERS
# providers (default 2000, the demo's size) into a store of its own, starts providerd on a free
# loopback port with public FHIR reads, drives it with providerbench at $BENCH_RATE requests/s
# per scenario, prints the table (figures next to an in-process ceiling serving the same bytes),
# and stops the server. Everything it writes lives under data/bench-<providers>.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
providers=${BENCH_PROVIDERS:-2000}
rate=${BENCH_RATE:-1000}
duration=${BENCH_DURATION:-10s}
# The binaries carry the reference files; REFERENCE=DIR reads a directory of newer ones instead.
reference=()
if [[ -n ${REFERENCE:-} ]]; then
	reference=(--reference "$REFERENCE")
fi
dir=data/bench-$providers

if [[ ! -f $dir/drop/manifest.json ]]; then
	bin/providerctl generate --providers "$providers" --seed 7 "${reference[@]}" --out "$dir/drop" >/dev/null
fi
if [[ ! -d $dir/db ]]; then
	bin/providerctl ingest --store "embedded:$dir/db" "${reference[@]}" "$dir/drop" >/dev/null
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
bin/providerd --addr "127.0.0.1:$port" --store "embedded:$dir/db" "${reference[@]}" \
	--fhir-public-read --log-level warn >"$dir/providerd.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
	sleep 0.1
done
echo "providerd on $providers providers ($dir)"
bin/providerbench --base-url "http://127.0.0.1:$port" --rate "$rate" --duration "$duration"
