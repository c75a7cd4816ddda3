#!/usr/bin/env bash
# bench.sh: the load harness of `make bench` and `make bench-quick`. It generates a synthetic drop
# of $BENCH_PROVIDERS providers once (kept under data/bench/<providers>/drop), ingests it into a
# store of its own (once, or on every run with BENCH_INGEST=always so that the ingest figure is
# today's), issues supply API keys for the run, starts providerd on a free loopback port with
# public FHIR reads and loopback trusted as a proxy, drives it with providerbench at each of
# $BENCH_RATES offered rates, prints the table, draws the chart of p99 latency against offered
# rate (data/bench/<providers>/latency.png) and stops the server. With BENCH_DOCS=FILE it also
# writes the reference page there, with the chart beside it: the figures, one a row with the run's
# date and machine (a figure the run was not asked for, national or MongoDB, kept from the old
# page with its own date: scripts/benchpage.sh), the method, and the section of design decisions
# kept from the old page, which code comments point to.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/benchpage.sh
providers=${BENCH_PROVIDERS:-100000}
rates=${BENCH_RATES:-250,1000}
duration=${BENCH_DURATION:-4s}
warmup=${BENCH_WARMUP:-1s}
rounds=${BENCH_ROUNDS:-3}
ingest=${BENCH_INGEST:-once}
docs=${BENCH_DOCS:-}
# The commit the binaries were built from, which `make` passes; else the checkout's.
commit=${BENCH_COMMIT:-$(git rev-parse --short=7 HEAD)}
# The binaries carry the reference files; REFERENCE=DIR reads a directory of newer ones instead.
reference=()
if [[ -n ${REFERENCE:-} ]]; then
	reference=(--reference "$REFERENCE")
fi
dir=data/bench/$providers
mkdir -p "$dir"

if [[ ! -f $dir/drop/manifest.json ]]; then
	echo "generating $providers providers into $dir/drop (once)"
	bin/providerctl generate --providers "$providers" --seed 7 "${reference[@]}" --out "$dir/drop" >/dev/null
fi
# The labelled search query set beside the drop (generate writes it; a drop kept from before is
# given one).
if [[ ! -f $dir/drop/search_queries.jsonl ]]; then
	bin/providerctl search-queries --drop "$dir/drop" >/dev/null
fi
if [[ $ingest == always ]]; then
	rm -rf "$dir/db"
fi
if [[ ! -f $dir/ingest.time ]]; then
	rm -rf "$dir/db"
fi
if [[ ! -d $dir/db ]]; then
	echo "ingesting $dir/drop into embedded:$dir/db"
	start=$(date +%s.%N)
	bin/providerctl ingest --store "embedded:$dir/db" "${reference[@]}" "$dir/drop" >"$dir/ingest.log" 2>&1
	echo "$start $(date +%s.%N) $(date -u +%FT%TZ) $(cut -d' ' -f1-3 /proc/loadavg)" >"$dir/ingest.time"
fi
read -r t0 t1 ingested_at ingest_load <"$dir/ingest.time"
ingest_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
# The ingest's ceiling: the same CSV files split into records and nothing else
# (source/internal/csvscan's BenchmarkBareRead), on a warm page cache like the ingest's.
bare=$(CSV_CEILING_DIR="$PWD/$dir/drop" ${GO:-go} test -run '^$' -bench BenchmarkBareRead -benchtime 1x ./source/internal/csvscan/ |
	awk -v ingest="$ingest_s" '/^BenchmarkBareRead/ { for (i = 1; i < NF; i++) m[$(i + 1)] = $i
		printf "bare CSV read of the same files %.1f s (%d rows): ingest %.1f times the read", m["s/read"], m["rows"], ingest / m["s/read"] }')

# Where the ingest's time went: its phase table (providerctl ingest prints it last), each phase
# also as a ratio to the bare read of the same files.
bare_s=$(sed -n 's/^bare CSV read of the same files \([0-9.]*\) s.*/\1/p' <<<"$bare")
fhir_phases() { # fhir_phases LOG: the seconds of the FHIR projection and its commit, and their share
	awk '/^PHASE +SECONDS +SHARE +CPU +CORES$/ { on = 1; next }
		on && NF >= 5 { all += $(NF - 3); if (/^building the fhir projection/ || /^committing fhir_/) fhir += $(NF - 3) }
		END { printf "%.0f %.0f", fhir, (all > 0 ? 100 * fhir / all : 0) }' "$1"
}

cores_projection() { # cores_projection LOG: the ingest's time on 4 and 8 cores, projected from its PHASE table
	# Each phase's CPU seconds stay what they were (an ingest takes the same CPU seconds on one
	# core as on two) and split by Amdahl's law into a serial share and one spread over every
	# core, the serial share being what the phase's cores busy on this machine's cores imply.
	awk -v P="$(nproc)" '/^PHASE +SECONDS +SHARE +CPU +CORES$/ { on = 1; next }
		on && NF >= 5 { n++; wall[n] = $(NF - 3); cpu[n] = $(NF - 1) }
		END { for (N = 4; N <= 8; N += 4) {
				t = 0
				for (i = 1; i <= n; i++) {
					if (cpu[i] <= 0 || wall[i] <= 0 || P < 2) { t += wall[i]; continue }
					s = (P * wall[i] / cpu[i] - 1) / (P - 1); s = (s < 0 ? 0 : (s > 1 ? 1 : s))
					t += cpu[i] * (s + (1 - s) / N)
				}
				printf "%s%.0f s on %d cores", (N > 4 ? ", " : ""), t, N
			} }' "$1"
}

# weekly_drop FROM OUT CHANGES: a week of CHANGES changed NPPES records after the drop FROM,
# written into OUT once and kept (OUT/done marks it whole).
weekly_drop() {
	if [[ ! -f $2/done ]]; then
		rm -rf "$2"
		bin/providerctl generate --weekly-from "$1" --out "$2" --changes "$3" >/dev/null
		touch "$2/done"
	fi
}

# National scale: a whole drop of $BENCH_NATIONAL providers (9 million is the national registry),
# every family, generated once and kept under data/bench/national-N/drop, is ingested into an
# empty store of its own, timed with its phases, peak resident memory and CPU, and the store
# deleted. Then the drop's NPPES family alone (hard links under data/bench/national-N/nppes) is
# ingested the same way; that store is kept for the weekly delta below, then deleted. The drop
# takes about 14 GB and each store up to three times its files while it loads.
national=""
national_drop=""
if [[ -n ${BENCH_NATIONAL:-} ]]; then
	ndir=data/bench/national-$BENCH_NATIONAL
	if [[ ! -f $ndir/drop/manifest.json ]]; then
		echo "generating $BENCH_NATIONAL providers into $ndir/drop (once)"
		rm -rf "$ndir" && mkdir -p "$ndir"
		bin/providerctl generate --providers "$BENCH_NATIONAL" --seed 7 "${reference[@]}" --out "$ndir/drop.partial" >/dev/null
		mv "$ndir/drop.partial" "$ndir/drop"
	fi
	if [[ ! -f $ndir/nppes/manifest.json ]]; then
		rm -rf "$ndir/nppes" "$ndir/weekly-50000" && mkdir -p "$ndir/nppes"
		ln "$ndir"/drop/{npidata,pl,othername,endpoint}_pfile_*.csv "$ndir/nppes/"
		cp "$ndir/drop/manifest.json" "$ndir/nppes/"
	fi
	rm -rf "$ndir/db" "$ndir/db-drop" # left by a run that stopped before deleting them
	# national_ingest FILES STORE LABEL TARGET_S TARGET_GB: ingest FILES into an empty STORE when
	# the disk has three times their size free, and print its figures as a phrase (the
	# ingest's log is STORE.log, its time STORE.time, the bare read's seconds STORE.bare, none
	# of them left from an earlier run). It runs in a command substitution, where a failing
	# command does not stop the script, so a failed ingest is said as such.
	national_ingest() {
		local files=$1 db=$2 label=$3 target_s=$4 target_gb=$5 need_kb free_kb start end secs bare_s bare_rows peak_kb user sys fhir_s fhir_pct
		rm -f "$db.log" "$db.time" "$db.bare"
		need_kb=$(($(du -skL "$files" | cut -f1) * 3))
		free_kb=$(df -Pk "$ndir" | awk 'NR == 2 { print $4 }')
		if ((free_kb < need_kb)); then
			echo "not run: its store needs about $((need_kb / 1048576)) GB free, $((free_kb / 1048576)) GB are"
			return
		fi
		echo "ingesting $label of $BENCH_NATIONAL providers (national scale)" >&2
		start=$(date +%s.%N)
		if ! /usr/bin/time -f '%M %U %S' -o "$db.time" bin/providerctl ingest --store "embedded:$db" "${reference[@]}" "$files" >"$db.log" 2>&1; then
			rm -rf "$db" # nothing after may read a store the ingest left half made
			echo "failed: see $db.log"
			return
		fi
		end=$(date +%s.%N)
		read -r bare_s bare_rows <<<"$(CSV_CEILING_DIR="$PWD/$files" ${GO:-go} test -run '^$' -bench BenchmarkBareRead -benchtime 1x ./source/internal/csvscan/ |
			awk '/^BenchmarkBareRead/ { for (i = 1; i < NF; i++) m[$(i + 1)] = $i; printf "%.1f %d", m["s/read"], m["rows"] }')"
		echo "$bare_s" >"$db.bare"
		secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
		# The time file holds the peak resident kB, then the user and system CPU seconds: CPU
		# seconds over wall seconds says how many of the cores the ingest kept busy.
		read -r peak_kb user sys <"$db.time"
		read -r fhir_s fhir_pct <<<"$(fhir_phases "$db.log")"
		awk -v s="$secs" -v more="$(cores_projection "$db.log")" -v b="$bare_s" -v r="$bare_rows" -v kb="$peak_kb" -v cpu="$(awk -v u="$user" -v y="$sys" 'BEGIN { print u + y }')" -v cores="$(nproc)" -v f="$fhir_s" -v fp="$fhir_pct" -v ts="$target_s" -v tgb="$target_gb" \
			'BEGIN { printf "%d s (%d min %02d s; target %d min, %s), of which the FHIR projection and its commit %d s (%d%% of the phases%s); peak resident %.2f GB (target %s GB or less); CPU %.0f s (%.2f of %d cores busy on average); bare CSV read of the same files %.1f s (%d rows): ingest %.1f times the read; projected on more cores from its phases (Amdahl'"'"'s law, each phase'"'"'s serial share from its cores busy here; not measured): %s",
				s, s / 60, s % 60, ts / 60, (s > ts ? sprintf("%d s over", s - ts) : "met"), f, fp, (s > ts ? "; why that is the gap: the design-choice rows on FHIR resources built at ingest and on the monthly ingest sized by cores" : ""),
				kb / 1048576, tgb, cpu, cpu / s, cores, b, r, s / b, more }'
	}
	national_drop=$(national_ingest "$ndir/drop" "$ndir/db-drop" "the whole drop" 480 2)
	rm -rf "$ndir/db-drop"
	echo "whole national drop ingest: $national_drop"
	national=$(national_ingest "$ndir/nppes" "$ndir/db" "the NPPES family" 300 2)
	echo "national NPPES ingest: $national"
fi

# Supply API keys are pilot keys, each metered to 60 requests a rolling minute and 1,000 a day.
# The run issues its own, enough that providerbench, using them in turn, spends at most 50 of any
# one across all its rates; they expire after a day.
seconds() { local v=${1%s}; [[ $v =~ ^[0-9]+$ ]] || { echo "bench.sh: durations are whole seconds, got $1" >&2; exit 2; }; echo "$v"; }
per_run=$((rounds * $(seconds "$warmup") + $(seconds "$duration")))
total=0
for r in ${rates//,/ } 100 250; do # the by-state scenario at every rate, the export at its own
	total=$((total + r * per_run))
done
# The keys go to providerbench in files only the user can read, not on its command line.
bearer=$dir/supply-keys.txt
service_keys=$dir/resolver-keys.txt
(umask 077 && : >"$bearer" && : >"$service_keys")
for _ in $(seq $(((total + 49) / 50))); do
	bin/providerctl keys --store "embedded:$dir/db" create --tier pilot --name bench --expires 24h | tail -n 1 >>"$bearer"
done
# Resolver keys are Pro keys, each metered to 50,000 requests and 500,000 batched NPIs an hour:
# enough that the resolver scenarios (NPI, search and search near a ZIP at every rate) and the
# labelled search queries spend at most 25,000 requests of any one, and the batch scenario (1,000
# NPIs a request at 10 and 25 a second) fewer than 500,000 NPIs of all of them together.
queries=$(wc -l <"$dir/drop/search_queries.jsonl")
for _ in $(seq $(((3 * total + queries + 24999) / 25000))); do
	bin/providerctl keys --store "embedded:$dir/db" create --tier pro --name bench --expires 24h | tail -n 1 >>"$service_keys"
done

# The ZIP code the resolver's near scenario searches around: the practice ZIP of the most
# providers of the drop among those with a Census ZCTA (one without has no position), found once.
if [[ ! -s $dir/near-zip ]]; then
	awk -F'","' 'NR == FNR { split($0, f, ","); zcta[f[1]] = 1; next }
		FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "Provider Business Practice Location Address Postal Code") col = i; next }
		{ z = substr($col, 1, 5); if (z in zcta) n[z]++ }
		END { for (z in n) if (n[z] > most || (n[z] == most && z < zip)) { most = n[z]; zip = z }; print zip }' \
		<(gzip -dc source/reference/census/2021_Gaz_zcta_centroids.csv.gz) "$dir"/drop/npidata_pfile_*[0-9].csv >"$dir/near-zip"
fi
near_zip=$(cat "$dir/near-zip")

# The store's tables are read once first: the ingest wrote them past the page cache and the
# national runs since filled it, and the load is to meet the store as a server that has been
# serving for a while holds it, not wait on the disk for its first minute.
cat "$dir"/db/*.sst >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
bin/providerd --addr "127.0.0.1:$port" --store "embedded:$dir/db" "${reference[@]}" \
	--fhir-public-read --trusted-proxies 127.0.0.1/32 --log-level warn >"$dir/providerd.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 300); do
	curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
	sleep 0.1
done
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "providerd on $providers providers ($dir), load average before the run: $load_before"
echo "ingest: ${ingest_s} s ($ingested_at, load average then: $ingest_load); $bare"
bin/providerbench --base-url "http://127.0.0.1:$port" --rates "$rates" --duration "$duration" --warmup "$warmup" --rounds "$rounds" \
	--bearer-file "$bearer" --smart-key "$dir/sandbox-client.jwk" --service-key-file "$service_keys" --queries "$dir/drop/search_queries.jsonl" --near-zip "$near_zip" --export-type Practitioner --export-dir "$dir" \
	--clients 0 --markdown "$dir/table.md" --chart "$dir/latency.png" | tee "$dir/providerbench.out"
bulk_export=$(sed -n 's/^FHIR bulk export of //p' "$dir/providerbench.out")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average after the run: $load_after"
# Webhooks: a change set of $webhook_events watched NPIs fanned out into deliveries and delivered
# to a receiver on loopback, on the embedded store, beside the receiver's own ceiling.
webhook_events=${BENCH_WEBHOOK_EVENTS:-100000}
webhooks=$(WEBHOOK_BENCH_EVENTS=$webhook_events ${GO:-go} test -run '^$' -bench BenchmarkDelivery -benchtime 1x -timeout 30m ./webhook/ |
	awk '/^BenchmarkDelivery/ { for (i = 1; i < NF; i++) m[$(i + 1)] = $i
		printf "fan-out %.0f events/s, delivered %.0f/s, receiver ceiling %.0f/s", m["events/s"], m["delivered/s"], m["receiver-ceiling/s"] }')
echo "webhooks: $webhooks"
# Weekly NPPES delta: a week of changed records in proportion to the snapshot (50,000 at 9
# million, the target being 30 s there), generated once beside the drop, applied on top of the
# serving snapshot through the running server and timed to the switch, then rolled back, so that
# the next run measures against the monthly snapshot again.
weekly_changes=$(((providers * 50000 + 8999999) / 9000000))
weekly_drop "$dir/drop" "$dir/weekly-$weekly_changes" "$weekly_changes"
w0=$(date +%s.%N)
bin/providerctl ingest --store "embedded:$dir/db" "${reference[@]}" "$dir/weekly-$weekly_changes" >"$dir/weekly.log" 2>&1
w1=$(date +%s.%N)
bin/providerctl rollback --store "embedded:$dir/db" >>"$dir/weekly.log" 2>&1
weekly=$(awk -v a="$w0" -v b="$w1" -v n="$weekly_changes" -v p="$providers" \
	'BEGIN { printf "%d changed records on %d providers: %.1f s (target: 50,000 on 9,000,000 in 30 s)", n, p, b - a }')
echo "weekly delta: $weekly"
# The national weekly delta's own target: 50,000 changed records on top of the national snapshot
# in 30 s. It is the first delta on the freshly ingested store, as an operator's first weekly run
# after a monthly one is, with the page cache emptied first where the run may (as root; the
# figure says which). Its look-ups read blocks scattered over the store, so it waits on the
# disk's random reads: the reads of the device (/proc/diskstats) and their average time say how
# much. Its ceiling is the same delta run again, rolled back, with what it read still in the page
# cache: the same work with a disk that costs nothing.
if [[ -d ${ndir:-}/db ]]; then
	weekly_drop "$ndir/nppes" "$ndir/weekly-50000" 50000
	empty_cache() { sync; [[ -w /proc/sys/vm/drop_caches ]] && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; }
	# The reads the store's device has completed and the milliseconds it spent on them (fields 4
	# and 7 of its /proc/diskstats line); nothing when the store is on no such device.
	device=$(basename "$(df -P "$ndir/db" | awk 'NR == 2 { print $1 }')")
	device_reads() { awk -v d="$device" '$3 == d { print $4, $7 }' /proc/diskstats; }
	# weekly_run OUT: the delta, timed into OUT: wall, user and system CPU seconds, the 512-byte
	# blocks it read, and the reads the device completed meanwhile and their milliseconds (none
	# when unknown).
	weekly_run() {
		local before after
		before=$(device_reads)
		/usr/bin/time -f '%e %U %S %I' -o "$1" bin/providerctl ingest --store "embedded:$ndir/db" "${reference[@]}" "$ndir/weekly-50000" >>"$ndir/weekly.log" 2>&1
		after=$(device_reads)
		echo "$(cat "$1") $(awk -v b="$before" -v a="$after" 'BEGIN { if (b != "" && a != "") { split(b, x); split(a, y); print y[1] - x[1], y[2] - x[2] } }')" >"$1"
	}
	# weekly_figures OUT: a run's figures as a phrase.
	weekly_figures() {
		awk '{ printf "%.1f s, CPU %.0f s, %.1f GB read from disk", $1, $2 + $3, $4 * 512 / 1e9; if ($5 > 0) printf " in %d reads of the device, %.2f ms each on average", $5, $6 / $5 }' "$1"
	}
	# straight_read BYTES: how long the disk takes to read BYTES of the store's table files from
	# their starts, one file after another, the page cache emptied first: the bytes a delta read,
	# with no read wasted on them, which no delta reading as much can beat. Nothing when the page
	# cache cannot be emptied.
	straight_read() {
		local files=() have=0 f start end
		empty_cache || return 0
		for f in "$ndir"/db/*.sst; do
			((have >= $1)) && break
			files+=("$f")
			have=$((have + $(stat -c %s "$f")))
		done
		start=$(date +%s.%N)
		cat "${files[@]}" >/dev/null
		end=$(date +%s.%N)
		awk -v a="$start" -v b="$end" -v n="$have" 'BEGIN { printf "the disk reading as many bytes of the store'"'"'s tables straight through, %.1f GB: %.1f s, %.0f MB/s", n / 1e9, b - a, n / 1e6 / (b - a) }'
	}
	: >"$ndir/weekly.log"
	cache="page cache as the run before left it"
	if empty_cache; then
		cache="page cache emptied first"
	fi
	weekly_run "$ndir/weekly.time"
	bin/providerctl rollback --store "embedded:$ndir/db" >>"$ndir/weekly.log" 2>&1
	weekly_run "$ndir/weekly-repeat.time"
	disk=$(straight_read "$(awk 'NR == 1 { printf "%.0f", $4 * 512 }' "$ndir/weekly.time")")
	rm -rf "$ndir/db"
	over_ceiling=$(awk 'NR == 1 { first = $1 } NR == 2 { printf "%.2f", first / $1 }' "$ndir/weekly.time" "$ndir/weekly-repeat.time")
	over_target=$(awk 'NR == 1 { if ($1 > 30) printf "%.1f s over", $1 - 30; else printf "met" }' "$ndir/weekly.time")
	national_weekly="50000 changed records on the national snapshot: $(weekly_figures "$ndir/weekly.time") (target 30 s, $over_target; $cache); ceiling, the same delta again, rolled back, with what it read in the page cache: $(weekly_figures "$ndir/weekly-repeat.time"); the first run $over_ceiling times its ceiling${disk:+; $disk}"
	echo "national weekly delta: $national_weekly"
fi
# The mongo backend: the specialty page with its practitioners served from MongoDB (FerretDB on
# PostgreSQL unless MONGODB_URI names a server) to 16 clients, beside the same commands sent
# straight through the driver (store/mongo's BenchmarkSpecialtyPage, which loads its own
# snapshot of mongo_providers providers). The target is a p50 of at most 100 ms at 300 pages a
# second or more.
mongo_providers=20000
mongo_server="FerretDB 1.24 on PostgreSQL (scripts/mongotest.sh)"
if [[ -n ${MONGODB_URI:-} ]]; then
	mongo_server="the server at \$MONGODB_URI"
fi
mongo_page=""
if [[ ${BENCH_MONGO:-1} == 0 ]]; then
	echo "FHIR search on MongoDB: not run (BENCH_MONGO=0)"
elif PAGE_BENCH_PROVIDERS=$mongo_providers bash scripts/with-mongotest.sh ${GO:-go} test -run '^$' -bench BenchmarkSpecialtyPage -benchtime 1x -timeout 10m ./store/mongo/ >"$dir/mongo-page.out" 2>&1; then
	mongo_page=$(awk -v server="$mongo_server" '/^BenchmarkSpecialtyPage/ { for (i = 1; i < NF; i++) m[$(i + 1)] = $i
		printf "%s, %d providers, %d clients, a page of %d entries in %d round trips: ours p50 %.0f ms, p99 %.0f ms, %.2f pages/s (%d answered 503) / bare driver (the same commands) p50 %.0f ms, p99 %.0f ms, %.2f pages/s; the page'"'"'s query alone through the bare driver %.2f pages/s. One client: ours %.0f ms / bare driver %.0f ms (the dependency'"'"'s share of a page %.0f%%); the includes as one $in query instead %.0f ms. Target p50 <= 100 ms at >= 300 pages/s: ours reaches %.2f of the bare driver'"'"'s rate, whose ceiling is %.0f times short of the target, the query alone %.0f times",
			server, m["providers"], m["clients"], m["entries/page"], m["round-trips/page"], m["ours-p50-ms"], m["ours-p99-ms"], m["ours-pages/s"], m["ours-errors"],
			m["bare-p50-ms"], m["bare-p99-ms"], m["bare-pages/s"], m["query-pages/s"], m["ours1-p50-ms"], m["bare1-p50-ms"],
			(m["bare1-p50-ms"] < m["ours1-p50-ms"] ? 100 * m["bare1-p50-ms"] / m["ours1-p50-ms"] : 100), m["in1-p50-ms"],
			m["ours-pages/s"] / m["bare-pages/s"], 300 / m["bare-pages/s"], 300 / m["query-pages/s"] }' "$dir/mongo-page.out")
else
	mongo_page="not run: store/mongo's BenchmarkSpecialtyPage failed ($dir/mongo-page.out)"
fi
[[ -n $mongo_page ]] && echo "FHIR search on MongoDB: $mongo_page"
[[ -z $docs ]] && exit 0

# The reference page: the figures, one a row with the run's date and machine (those of a
# measurement not run kept from the page it replaces, scripts/benchpage.sh), the method, and the
# design decisions kept as they are.
previous=$docs
chart=${docs%/*}/benchmarks-latency.png
cp "$dir/latency.png" "$chart"
kept=$(awk '/^## Design decisions/ { on = 1 } on && /^## / && !/Design decisions/ { on = 0 } on' docs/BENCHMARKS.md)
store_size=$(du -sh "$dir/db" | cut -f1)
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
bench_date=$(date -u +%F)
bench_machine="$cpu, $(nproc) cores, $mem"
cat >"$docs.new" <<DOC
# Benchmarks

The figures of the last \`make bench\` (scripts/bench.sh writes this page; \`make bench-quick\`
runs the same at 100,000 providers and prints them only), one a row with the date and machine
of its run. \`make bench-1m\` refreshes the 1,000,000-provider figures alone: the national and
MongoDB rows and phase tables stay as their last run left them, with its date. Figures of two
machines compare only as ratios to a ceiling measured in the same run (Method). The design
decisions at the end are the figures the code's comments cite.

## Figures

| figure | value | date | machine |
|---|---|---|---|
$(figure_rows "commit" "$commit")
$(figure_rows "snapshot" "$providers synthetic providers (seed 7), store $store_size")
$(figure_rows "load average (1, 5, 15 min)" "before $load_before; after $load_after (the machine is shared)")
$(figure_rows "ingest" "$providers providers, \`providerctl ingest\` into an empty store: $ingest_s s; $bare")
$(figure_or_kept "whole national drop" "$national_drop" "BENCH_NATIONAL unset")
$(figure_or_kept "national NPPES ingest" "$national" "BENCH_NATIONAL unset")
$(figure_rows "webhooks" "$webhook_events watched provider.changed events: $webhooks")
$(figure_rows "weekly NPPES delta" "\`providerctl ingest\` of a week's files on top of the snapshot: $weekly")
$(figure_or_kept "national weekly NPPES delta" "${national_weekly:-}" "BENCH_NATIONAL unset")
$(figure_rows "FHIR bulk export" "\`GET /fhir/\$export?_type=Practitioner\`, the file downloaded over loopback: $bulk_export")
$(figure_or_kept "FHIR search on MongoDB" "${mongo_page:+\`PractitionerRole?specialty=...&_include=PractitionerRole:practitioner\` on $mongo_page}" "BENCH_MONGO=0")

### Latency against offered load

$(stamp_table "$dir/table.md")

### Ingest phases

Where each ingest spent its time (\`providerctl ingest\` prints this table last):
$(phase_section "The ingest of $providers providers" "$dir/ingest.log" "$bare_s")
$(if [[ -f ${ndir:-}/db-drop.bare ]]; then
	phase_section "The whole national drop" "$ndir/db-drop.log" "$(cat "$ndir/db-drop.bare")"
else
	phase_section "The whole national drop"
fi)
$(if [[ -f ${ndir:-}/db.bare ]]; then
	phase_section "The national NPPES ingest" "$ndir/db.log" "$(cat "$ndir/db.bare")"
else
	phase_section "The national NPPES ingest"
fi)

### Search quality

Search quality on the labelled query set \`providerctl generate\` writes beside the drop:

\`\`\`
$(awk '/^search quality/ { on = 1 } on' "$dir/providerbench.out")
\`\`\`

![p99 latency against offered load per scenario](${chart##*/})

The chart has a panel per scenario: its p99 (blue) and the ceiling's (grey, dashed) at each
offered rate, on an axis from 0 fitted to the panel, and the scenario's p99 target (red, dotted)
where it has one.

## Method

- The drop is generated once with \`providerctl generate --seed 7\` and kept under data/bench; the
  ingest is timed from an empty store to the switched snapshot.
- National scale: a whole drop of \$BENCH_NATIONAL providers, every family, generated once with
  the same seed and kept, is ingested into an empty store of its own, timed from start to
  switched snapshot with \`/usr/bin/time\` for the peak resident memory and the CPU seconds (over
  the wall seconds: how many cores the ingest kept busy), and its store deleted. Then the drop's
  NPPES files alone are ingested the same way into another empty store;
  after the load runs, a week of 50,000 changed records (\`providerctl generate --weekly-from\`,
  once) is ingested on top of it as its first delta, as an operator's first weekly run after a
  monthly one meets it (\`sync\`, and the page cache emptied first when the run may), timed with
  \`/usr/bin/time\` for its CPU seconds and the bytes it read from disk, with the reads the
  store's device completed meanwhile and their average time (/proc/diskstats). Its ceiling is
  the same delta run again straight after, rolled back, with what the first run read still in
  the page cache: the same work with a disk that costs nothing. The disk's own figure follows:
  as many bytes of the store's tables as the first run read, read straight through from the
  files' starts with the page cache emptied, the least time those bytes can take. Then the
  store is deleted. Each ingest is skipped, and says so, when the disk lacks three times its files' size.
- providerd serves the snapshot, its tables read once beforehand into the page cache, on a
  free loopback port with \`--fhir-public-read\` and
  \`--trusted-proxies 127.0.0.1/32\`. cmd/providerbench drives it open-loop: each request is
  issued on a fixed schedule at the offered rate whether or not earlier ones have answered, and
  its latency counts from its scheduled start, so a stall shows as latency. A request that would
  exceed 512 in flight is counted as an error rather than delayed.
- At each offered rate each scenario runs in $rounds rounds, providerd's and the ceiling's in
  turn, each round $warmup unmeasured and then its share of $duration measured. Load from other
  processes comes and goes; taking turns lets it fall on both sides alike. A row's latencies are
  the medians of its rounds' (so one disturbed round moves none of them), its achieved rate that
  of all its rounds together, and its rounds' column the lowest and the highest of the rounds'
  own p99 ratios: how far that load moved them.
- The ceiling is a server inside providerbench that answers the same request with the bytes and
  headers providerd gave, from memory, driven the same way; achieved/ceiling and
  p99/ceiling p99 are the figures to compare across runs and machines.
- The last column holds the service's target for a scenario at the rate it is set for, 2,000
  requests a second offered, and whether the run met it: the rate sustained (every request
  answered, 99% of the offered rate achieved); for a read by id and an identifier search a p99
  of 2 ms or less and no more than 1/0.6 times the ceiling's, for the specialty search with
  \`_include\` 5 ms and 1/0.4 times, for a name-prefix search 5 ms and 1/0.3 times; the token
  endpoint the rate alone. A target missed says by how much. The read with a token has its
  own target under the table: 0.8 of the same read's throughput without one, for a client
  address that reads many times.
- The resolver's NPI read and search use Pro resolver keys in turn, for the first query of the
  drop's labelled search query set (search_queries.jsonl, written by \`providerctl generate\`), and
  so does its search near a ZIP: 25 miles around the drop's practice ZIP of the most providers
  among those with a Census ZCTA, by place alone, pages of 20; the line under the table sets
  its p99 against the name search's at each rate (target: twice it at most);
  then every query of the set runs through the search one at a time, and precision@1, recall@10
  and the searches' latency percentiles are printed, overall and recall@10 per deformation; the
  set's typos in two words, title with initials and a typo, split word and words run together
  are searched by the name alone, without a state (match/queryset).
- FHIR bulk export: providerbench kicks off an export of the Practitioners (public reads, so no
  token), reads the manifest, and downloads the file to the end beside the snapshot, checking
  its lines against the manifest's count; the ceiling is the same file served by net/http
  (\`http.ServeContent\`) over loopback and downloaded the same way straight after.
- FHIR search on MongoDB (store/mongo's BenchmarkSpecialtyPage): a drop of $mongo_providers
  providers (seed 7) is ingested into an embedded store and its roles, practitioners and tag
  sets copied into a database of their own on the server; the FHIR handler serves the specialty
  scenario's page from it, checked byte for byte (but the Bundle's random id) against the
  embedded store's, to 16 closed-loop clients (each sends its next request when the last one
  answered) for 15 s, with the operation timeout of production (a page whose store call times
  out answers 503). The round trips are the commands on data collections the driver's command
  monitor saw for one page: the page's query and, on FerretDB, one read per resource it
  includes (at most \`_count\` per included type, and the include cap); on MongoDB one
  \`\$in\` query per included type. The bare driver replays those commands through the driver
  alone, the page's query then its include reads all at once, from the same number of clients;
  then the query alone; then one client for 5 s each: ours, the replay, and the includes as one
  \`\$in\` query. The dependency's share is the replay's time over ours, one client alone. On
  FerretDB 1.24 every query is a sequential scan in PostgreSQL: an equality, on _id too, becomes
  a jsonb containment test that its B-tree indexes cannot serve, and \`\$in\` is matched in
  memory over the whole collection (store/mongo's package comment). A page costs one scan of
  the roles and one of the practitioners for each practitioner it includes, which the store
  reads by _id, all at once; the \`\$in\` figure is why it does not read them with one query.
- Supply by-state uses pilot keys in turn, enough that none reaches its quota; the token endpoint
  gets assertions signed before the run by the sandbox client's key, each request with its own
  X-Forwarded-For address so that the per-address token budget is not what is measured.
- The read with a SMART token carries an access token of the sandbox client, fetched before each
  run, and an X-Forwarded-For address of its own per request (the sandbox's budget is per
  address). The first line under the table is the token endpoint's own ceiling: the signature
  check of an assertion alone, in process, on every core. The second sets the read with the
  token against the same read without one as throughput: 8 closed-loop clients each, the two
  in turn in rounds, a fresh token before each token round; once with each client address
  reading 100 times, as a client reads many times on one budget, and once with a new address
  for every read, each the first of a budget. The load generator shares the machine's cores
  with the server, so the ratio also holds the generator's own work for the token's headers and
  the budget's answer headers.

$kept
DOC
mv "$docs.new" "$docs"
echo "wrote $docs"
