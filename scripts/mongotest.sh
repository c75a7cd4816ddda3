#!/usr/bin/env bash
# mongotest.sh: a private MongoDB-protocol server for the mongo store backend's tests.
#
# MongoDB itself is not installable everywhere the tests run; FerretDB (embedded in
# tools/mongotest, its own Go module) speaks the MongoDB wire protocol on top of PostgreSQL.
# This script runs both, private to this checkout, on loopback ports:
#
#   scripts/mongotest.sh build    install PostgreSQL if missing and build the server, starting
#                                 nothing: the slow part of a first start, for running beside other work
#   scripts/mongotest.sh start    start whatever is not running yet (idempotent) and print
#                                 `export MONGODB_URI=...` on stdout: eval "$(scripts/mongotest.sh start)"
#   scripts/mongotest.sh uri      print the URI of the running server (exit 1 if none)
#   scripts/mongotest.sh status   say what runs (exit 0 only if the server answers)
#   scripts/mongotest.sh stop     stop FerretDB and PostgreSQL (the data directory is kept)
#   scripts/mongotest.sh purge    stop, then delete the state directory
#
# PostgreSQL is installed with apt-get when missing (as root). Root cannot run PostgreSQL, so as
# root the cluster belongs to the `postgres` system user; otherwise to the calling user. The
# cluster runs with fsync off: it holds throwaway test data only, and durability costs the test
# suite most of its time. It uses the C locale so that PostgreSQL never orders strings by a
# natural-language collation. It allows 300 connections because FerretDB's pool is raised to 250
# (tools/mongotest explains why: fewer pooled connections than concurrent updates hang FerretDB).
#
# State (cluster, logs, pid files, the built binary) lives in $MONGOTEST_DIR, by default a
# directory under ${TMPDIR:-/tmp} named after this checkout, so two checkouts never share a server.
# Progress goes to stderr; only the export line goes to stdout.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=${MONGOTEST_DIR:-${TMPDIR:-/tmp}/providerdir-mongotest-$(id -u)-$(printf '%s' "$repo" | cksum | cut -d' ' -f1)}
pgdir=$state/pg
pgdata=$pgdir/data
pgdb=ferretdb

log() { echo "mongotest: $*" >&2; }
die() { log "$*"; exit 1; }

# The cluster's owner: root may not run postgres.
if [ "$(id -u)" = 0 ]; then
	pguser=postgres
else
	pguser=$(id -un)
fi
as_pguser() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$pguser" -- "$@"
	else
		"$@"
	fi
}

find_pgbin() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -V -r); do
		if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then
			echo "$d"
			return 0
		fi
	done
	if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
		dirname "$(command -v pg_ctl)"
		return 0
	fi
	return 1
}

ensure_postgresql() {
	if pgbin=$(find_pgbin); then
		return
	fi
	[ "$(id -u)" = 0 ] || die "PostgreSQL is not installed; install it (apt-get install postgresql) or run this as root"
	command -v apt-get >/dev/null || die "PostgreSQL is not installed and apt-get is unavailable"
	log "installing postgresql with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
	pgbin=$(find_pgbin) || die "postgresql installed but pg_ctl/initdb not found"
}

port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_port() {
	local p i
	for i in $(seq 1 50); do
		p=$((20000 + RANDOM % 30000))
		if port_free "$p"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

pg_running() {
	[ -f "$pgdata/PG_VERSION" ] && as_pguser "$pgbin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1
}

start_postgresql() {
	ensure_postgresql
	mkdir -p "$pgdir"
	chmod 755 "$state" "$pgdir"
	chown "$pguser" "$pgdir"
	if [ ! -f "$pgdata/PG_VERSION" ]; then
		log "creating a PostgreSQL cluster in $pgdata"
		rm -rf "$pgdata"
		as_pguser "$pgbin/initdb" -D "$pgdata" --username=postgres --auth=trust \
			--encoding=UTF8 --locale=C >"$pgdir/initdb.log" 2>&1 ||
			{ cat "$pgdir/initdb.log" >&2; die "initdb failed"; }
	fi
	if ! pg_running; then
		local attempt port
		for attempt in 1 2 3; do
			port=$(pick_port) || die "no free port for PostgreSQL"
			mkdir -p "$pgdir/sock"
			chown "$pguser" "$pgdir/sock"
			log "starting PostgreSQL on 127.0.0.1:$port"
			if as_pguser "$pgbin/pg_ctl" -D "$pgdata" -l "$pgdir/postgresql.log" -w -t 60 \
				-o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$pgdir/sock -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
				start >/dev/null 9>&-; then
				echo "$port" >"$pgdir/port"
				break
			fi
			# Another process may have taken the port between the probe and the bind.
			[ "$attempt" = 3 ] && { tail -n 20 "$pgdir/postgresql.log" >&2; die "PostgreSQL did not start"; }
		done
	fi
	pgport=$(cat "$pgdir/port")
	if ! psql -h 127.0.0.1 -p "$pgport" -U postgres -d postgres -tAc \
		"SELECT 1 FROM pg_database WHERE datname = '$pgdb'" | grep -q 1; then
		psql -h 127.0.0.1 -p "$pgport" -U postgres -d postgres -qc "CREATE DATABASE $pgdb" >&2
	fi
}

build_server() {
	command -v go >/dev/null || die "go is not on PATH"
	mkdir -p "$state/bin"
	# go build is a no-op when nothing changed, so this is cheap after the first time. Without
	# cgo, as every binary of the repository: it compiles Go only.
	(cd "$repo/tools/mongotest" && CGO_ENABLED=0 go build -o "$state/bin/mongotest" .) >&2 || die "building tools/mongotest failed"
}

server_pid() {
	local pid
	[ -f "$state/ferretdb.pid" ] || return 1
	pid=$(cat "$state/ferretdb.pid")
	kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}

server_answers() {
	[ -f "$state/uri" ] && [ -x "$state/bin/mongotest" ] && server_pid >/dev/null &&
		"$state/bin/mongotest" -check "$(cat "$state/uri")" 2>/dev/null
}

start_server() {
	# Rebuilding is a no-op when tools/mongotest is unchanged; when it changed, the running server
	# is an old build and is replaced.
	build_server
	local sum
	sum=$(sha256sum "$state/bin/mongotest" | cut -d' ' -f1)
	if server_answers && [ "$(cat "$state/ferretdb.sum" 2>/dev/null)" = "$sum" ]; then
		return
	fi
	stop_server
	rm -f "$state/uri"
	echo "$sum" >"$state/ferretdb.sum"
	log "starting FerretDB"
	# The lock descriptor is closed for the daemons, or they would hold the lock for their lifetime.
	# setsid: a Ctrl-C in the terminal that ran `make test` must not reach the server half-way
	# through another command's use of it; stop is explicit.
	setsid "$state/bin/mongotest" -listen 127.0.0.1:0 \
		-postgresql-url "postgres://postgres@127.0.0.1:$pgport/$pgdb" \
		-uri-file "$state/uri" </dev/null >"$state/ferretdb.out" 2>"$state/ferretdb.log" 9>&- &
	echo $! >"$state/ferretdb.pid"
	local i
	for i in $(seq 1 600); do
		if [ -s "$state/uri" ]; then
			return
		fi
		if ! server_pid >/dev/null; then
			tail -n 20 "$state/ferretdb.log" >&2
			die "FerretDB exited during startup (log: $state/ferretdb.log)"
		fi
		sleep 0.1
	done
	tail -n 20 "$state/ferretdb.log" >&2
	die "FerretDB did not answer within 60s (log: $state/ferretdb.log)"
}

stop_server() {
	local pid i
	if pid=$(server_pid); then
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$state/ferretdb.pid" "$state/uri"
}

stop_postgresql() {
	if pgbin=$(find_pgbin) && pg_running; then
		as_pguser "$pgbin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null
	fi
}

with_lock() {
	mkdir -p "$state"
	exec 9>"$state/lock"
	flock -w 300 9 || die "another mongotest.sh holds $state/lock"
}

cmd=${1:-}
case "$cmd" in
build)
	with_lock
	ensure_postgresql
	build_server
	;;
start)
	with_lock
	start_postgresql
	start_server
	echo "export MONGODB_URI=$(cat "$state/uri")"
	;;
uri)
	server_answers || die "no server is running; start one with: eval \"\$(scripts/mongotest.sh start)\""
	cat "$state/uri"
	;;
status)
	if pgbin=$(find_pgbin) && pg_running; then
		log "PostgreSQL runs on 127.0.0.1:$(cat "$pgdir/port") ($pgdata)"
	else
		log "PostgreSQL is not running"
	fi
	if server_answers; then
		log "FerretDB answers at $(cat "$state/uri")"
	else
		log "FerretDB is not running"
		exit 1
	fi
	;;
stop)
	with_lock
	stop_server
	stop_postgresql
	log "stopped"
	;;
purge)
	with_lock
	stop_server
	stop_postgresql
	rm -rf "$state"
	log "stopped and removed $state"
	;;
*)
	echo "usage: $0 build|start|uri|status|stop|purge" >&2
	exit 2
	;;
esac
