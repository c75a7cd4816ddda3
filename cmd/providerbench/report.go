package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// report prints the open-loop table and the notes under it (the token endpoint's ceiling, and
// tokenLine, the token read's cost, when there is one), and writes the Markdown table and the
// chart when asked.
func report(out io.Writer, rows []row, o options, tokenLine string) error {
	if err := writeTable(out, rows); err != nil {
		return err
	}
	note := ""
	if o.smartKey != "" {
		key, err := readKey(o.smartKey)
		if err != nil {
			return err
		}
		rate, err := verifyCeiling(key, o.duration)
		if err != nil {
			return err
		}
		note = fmt.Sprintf("The token endpoint's own ceiling, the signature check of an assertion alone (in process, %d cores): %.0f per second.", runtime.GOMAXPROCS(0), rate)
		fmt.Fprintln(out, "\n"+note)
	}
	for _, line := range []string{tokenLine, nearAgainstName(rows)} {
		if line != "" {
			fmt.Fprintln(out, "\n"+line)
			note = strings.TrimSpace(note + "\n\n" + line)
		}
	}
	if o.markdown != "" {
		if err := writeMarkdown(o.markdown, rows, note); err != nil {
			return err
		}
	}
	if o.chart != "" {
		return writeChart(o.chart, rows)
	}
	return nil
}

// row is one scenario at one offered rate, its rounds against the server and against the
// ceiling.
type row struct {
	scenario        string
	rate            int
	server, ceiling rounds
	target          *target // the scenario's, when it is for this row's rate
}

// cells are the row's figures as text, in the order of tableHeader.
func (r row) cells() []string {
	s, c := r.server, r.ceiling
	lo, hi := r.p99Spread()
	return []string{r.scenario, strconv.Itoa(r.rate),
		f2(ms(s.quantile(0.50))), f2(ms(s.quantile(0.95))), f2(ms(s.quantile(0.99))),
		fmt.Sprintf("%.0f", s.throughput()), strconv.FormatInt(s.errors(), 10),
		f2(ms(c.quantile(0.50))), f2(ms(c.quantile(0.99))), fmt.Sprintf("%.0f", c.throughput()),
		f2(ratio(s.throughput(), c.throughput())), f2(ratio(ms(s.quantile(0.99)), ms(c.quantile(0.99)))),
		f2(lo) + "–" + f2(hi), r.target.verdict(r)}
}

// p99Spread returns the lowest and the highest ratio of a server round's p99 to that of the
// ceiling round after it.
func (r row) p99Spread() (lo, hi float64) {
	return extremes(len(r.server), func(i int) float64 {
		return ratio(ms(r.server[i].quantile(0.99)), ms(r.ceiling[i].quantile(0.99)))
	})
}

var tableHeader = []string{"scenario", "offered req/s", "p50 ms", "p95 ms", "p99 ms", "achieved req/s", "errors",
	"ceiling p50 ms", "ceiling p99 ms", "ceiling req/s", "achieved/ceiling", "p99/ceiling p99", "rounds' p99/ceiling p99", "target"}

func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

// ratio is a/b, or 0 when b is 0 (a run with no answer at all).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// target is a scenario's promise at one offered rate: every request answered and at least
// minAchieved of the offered rate achieved; when maxP99 is set, a p99 no longer than maxP99 and
// no more than maxOverCeiling times the ceiling's (the table's p99/ceiling p99).
type target struct {
	rate           int
	maxP99         time.Duration
	maxOverCeiling float64
}

// minAchieved is the share of the offered rate a run must achieve to have sustained it: an
// open-loop schedule ends with a few requests still in flight.
const minAchieved = 0.99

// latencyTarget is a target at rate of a p99 no longer than p99 and at least ofCeiling as good
// as the ceiling's (the ceiling's p99 over the server's): 0.6 allows 1/0.6 times its p99.
func latencyTarget(rate int, p99 time.Duration, ofCeiling float64) *target {
	return &target{rate: rate, maxP99: p99, maxOverCeiling: 1 / ofCeiling}
}

// verdict says whether r met t: "met" and the target, or "short" and by how much each part
// missed. It is empty for no target.
func (t *target) verdict(r row) string {
	if t == nil {
		return ""
	}
	var miss, terms []string
	achieved := r.server.throughput()
	if errs := r.server.errors(); errs > 0 {
		miss = append(miss, fmt.Sprintf("%d errors", errs))
	}
	if floor := minAchieved * float64(t.rate); achieved < floor {
		miss = append(miss, fmt.Sprintf("%.0f req/s achieved, %.0f under %d", achieved, float64(t.rate)-achieved, t.rate))
	}
	terms = append(terms, fmt.Sprintf("%d req/s sustained", t.rate))
	if t.maxP99 > 0 {
		p99 := r.server.quantile(0.99)
		over := ratio(ms(p99), ms(r.ceiling.quantile(0.99)))
		terms = append(terms, fmt.Sprintf("p99 ≤ %s ms and ≤ %s× the ceiling's", trim(ms(t.maxP99)), f2(t.maxOverCeiling)))
		if p99 > t.maxP99 {
			miss = append(miss, fmt.Sprintf("p99 %s ms, %s ms over %s ms", f2(ms(p99)), f2(ms(p99-t.maxP99)), trim(ms(t.maxP99))))
		}
		if over > t.maxOverCeiling {
			miss = append(miss, fmt.Sprintf("%s× the ceiling's p99, over %s", f2(over), f2(t.maxOverCeiling)))
		}
	}
	if len(miss) > 0 {
		return "short: " + strings.Join(miss, "; ")
	}
	return "met: " + strings.Join(terms, ", ")
}

// trim formats v rounded to two decimals, without trailing zeros.
func trim(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

func writeTable(out io.Writer, rows []row) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(tableHeader, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t")+"\t")
	}
	return tw.Flush()
}

// writeMarkdown writes the table, and note, when there is one, after it: its paragraphs wrapped
// at noteWidth, so that the page's prose reads in a terminal as it does rendered.
func writeMarkdown(file string, rows []row, note string) error {
	var b strings.Builder
	b.WriteString("| " + strings.Join(tableHeader, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" ---: |", len(tableHeader)) + "\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r.cells(), " | ") + " |\n")
	}
	if note != "" {
		b.WriteString("\n" + wrapParagraphs(note, noteWidth) + "\n")
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// noteWidth is the widest line of the notes under the Markdown table.
const noteWidth = 100

// wrapParagraphs breaks each paragraph of s (paragraphs are separated by a blank line) into lines
// of at most width characters, between words; a word longer than width has a line of its own.
func wrapParagraphs(s string, width int) string {
	paras := strings.Split(s, "\n\n")
	for i, p := range paras {
		var lines []string
		line := ""
		for _, w := range strings.Fields(p) {
			switch {
			case line == "":
				line = w
			case len([]rune(line))+1+len([]rune(w)) <= width:
				line += " " + w
			default:
				lines = append(lines, line)
				line = w
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
		paras[i] = strings.Join(lines, "\n")
	}
	return strings.Join(paras, "\n\n")
}
