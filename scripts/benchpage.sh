#!/usr/bin/env bash
# benchpage.sh: the parts of docs/BENCHMARKS.md that scripts/bench.sh writes, sourced by it. Every
# row carries the date and machine of the run that measured it ($bench_date, $bench_machine). A
# measurement a run was not asked for (the national ingests without BENCH_NATIONAL, the MongoDB
# page with BENCH_MONGO=0) keeps its rows and its phase table from the page being replaced
# ($previous), with their own dates, so that a run of the 1,000,000-provider figures alone
# refreshes the page without erasing the others; a measurement never run says so.

# figure_rows NAME VALUE: the figure table's rows of one measurement, one figure a row: VALUE cut
# at "; " and ". " outside parentheses and code spans (and a part still over 160 characters at
# " / "), each row with the run's date and machine.
figure_rows() {
	awk -v name="$1" -v value="$2" -v date="$bench_date" -v machine="$bench_machine" '
	function cut(s, seps, out,    n, i, c, depth, code, start, k, sep, part) {
		n = 0; depth = 0; code = 0; start = 1
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "`") code = !code
			else if (!code && c == "(") depth++
			else if (!code && c == ")" && depth > 0) depth--
			if (depth || code) continue
			for (k in seps) {
				sep = seps[k]
				if (substr(s, i, length(sep)) == sep) {
					part = substr(s, start, i - start + (sep == ". " ? 1 : 0))
					if (part != "") out[++n] = part
					start = i + length(sep)
					i = start - 1
					break
				}
			}
		}
		if (start <= length(s)) out[++n] = substr(s, start)
		return n
	}
	BEGIN {
		first[1] = "; "; first[2] = ". "; second[1] = " / "
		n = cut(value, first, parts)
		for (i = 1; i <= n; i++) {
			if (length(parts[i]) > 160) {
				m = cut(parts[i], second, sub_)
				for (j = 1; j <= m; j++) printf "| %s | %s | %s | %s |\n", name, sub_[j], date, machine
				delete sub_
			} else {
				printf "| %s | %s | %s | %s |\n", name, parts[i], date, machine
			}
		}
	}'
}

# phase_table LOG BARE_SECONDS: the PHASE table of an ingest log as markdown.
phase_table() {
	awk -v bare="$2" '/^PHASE +SECONDS +SHARE +CPU +CORES$/ { on = 1
			print "| phase | seconds | share | CPU seconds | cores busy | phase / bare CSV read |"; print "| --- | ---: | ---: | ---: | ---: | ---: |"; next }
		on && NF >= 5 { cores = $NF; cpu = $(NF - 1); share = $(NF - 2); secs = $(NF - 3)
			for (i = NF - 3; i <= NF; i++) $i = ""; sub(/ +$/, "")
			printf "| %s | %s | %s | %s | %s | %.1f |\n", $0, secs, share, cpu, cores, (bare > 0 ? secs / bare : 0) }' "$1"
}

# kept_rows NAME: the figure rows of NAME on the previous page, as they stand.
kept_rows() {
	[[ -f ${previous:-} ]] || return 0
	awk -v name="$1" 'index($0, "| " name " | ") == 1' "$previous"
}

# figure_or_kept NAME VALUE WHY: the rows of VALUE (figure_rows) when the run measured it, else
# the previous page's rows of NAME, else one row saying it was not run and WHY.
figure_or_kept() {
	local kept
	if [[ -n $2 ]]; then
		figure_rows "$1" "$2"
		return
	fi
	kept=$(kept_rows "$1")
	if [[ -n $kept ]]; then
		echo "$kept"
	else
		figure_rows "$1" "not run ($3)"
	fi
}

# phase_section LEAD LOG BARE_SECONDS: a blank line, "LEAD (date, machine):" and the phase table
# of LOG (phase_table) when LOG is given, else the section of that LEAD on the previous page as it
# stands (its lead line and its table), else nothing.
phase_section() {
	if [[ -n ${2:-} ]]; then
		printf '\n%s (%s, %s):\n\n' "$1" "$bench_date" "$bench_machine"
		phase_table "$2" "$3"
		return
	fi
	[[ -f ${previous:-} ]] || return 0
	awk -v lead="$1 (" 'index($0, lead) == 1 { on = 1; print ""; print; next }
		on && /^\|/ { table = 1; print; next }
		on && table { exit }
		on { print }' "$previous"
}

# stamp_table FILE: the Markdown table of FILE with the run's date and machine added to every row.
stamp_table() {
	awk -v date="$bench_date" -v machine="$bench_machine" '
		/^\| ---/ { print $0 " --- | --- |"; next }
		/^\|/ && !header { print $0 " date | machine |"; header = 1; next }
		/^\|/ { print $0 " " date " | " machine " |"; next }
		{ print }' "$1"
}
