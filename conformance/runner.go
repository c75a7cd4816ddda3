package conformance

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Status is the outcome of one check.
type Status string

// The outcomes of a check.
const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Skip Status = "SKIP"
)

// Check is one named contract check on one surface. Run returns nil when the deployment honours
// the contract, a Skipf error when the check cannot apply here, and any other error as the
// reason it fails.
type Check struct {
	Surface string
	Name    string
	Run     func(ctx context.Context, e *Env) error
}

// Result is a check's outcome. Reason says why a check failed or was skipped, or what a passed
// check measured.
type Result struct {
	Surface  string
	Name     string
	Status   Status
	Reason   string
	Duration time.Duration
}

// skipError marks a check that does not apply, with its reason.
type skipError struct{ reason string }

func (s skipError) Error() string { return s.reason }

// Skipf returns the error a check gives when it does not apply to this deployment.
func Skipf(format string, a ...any) error { return skipError{fmt.Sprintf(format, a...)} }

// Options configure a run.
type Options struct {
	Credentials Credentials
	// HTTP is the client the suite uses; nil is a client with a 30-second timeout.
	HTTP *http.Client
	// Only, when not empty, runs the checks whose surface or "surface/name" it lists.
	Only []string
	// FHIRValidator is a directory where the npm package fhir is installed (`npm install fhir`);
	// when set, every FHIR resource the run was served is validated with it by node, as the
	// last check. "" skips that check.
	FHIRValidator string
	// Gone names a resource ("Practitioner/123") the latest source snapshot removed, which must
	// answer 410; "" skips that check.
	Gone string
	// ExhaustBudgets lets the budget checks spend the token endpoint's and the client's FHIR
	// budgets to see their 429s, locking the client out until Retry-After.
	ExhaustBudgets bool
	// WebhookURL is the receiver URL the webhook lifecycle check registers and deletes (nothing
	// is delivered to it); "" is DefaultWebhookURL. A deployment that admits loopback receivers
	// can be given one on loopback, so the check resolves no name beyond the machine.
	WebhookURL string
	// WebhookReceiver is an address on this machine (host:port; port 0 picks one) where the run
	// listens for webhook deliveries, which the delivery checks register and verify; the
	// deployment must be able to deliver there. "" skips those checks.
	WebhookReceiver string
}

// DefaultWebhookURL is the receiver the webhook lifecycle check registers when
// Options.WebhookURL is empty: a public https URL, which the deployment must resolve to accept.
const DefaultWebhookURL = "https://example.com/providerdir-conformance"

// Report is the outcome of a run.
type Report struct {
	Results []Result
}

// Failed counts the failed checks.
func (r Report) Failed() int { return r.count(Fail) }

func (r Report) count(s Status) int {
	n := 0
	for _, res := range r.Results {
		if res.Status == s {
			n++
		}
	}
	return n
}

// Run runs every check of the suite against the deployment, in order, and reports each.
func Run(ctx context.Context, opts Options) Report {
	return RunChecks(ctx, opts, Checks())
}

// RunChecks runs the given checks. A check's panic is its failure, not the run's end.
func RunChecks(ctx context.Context, opts Options, checks []Check) Report {
	e := newEnv(opts)
	var rep Report
	if opts.WebhookReceiver != "" {
		r, err := startReceiver(opts.WebhookReceiver)
		if err != nil {
			rep.Results = append(rep.Results, Result{Surface: "webhooks", Name: "the run's webhook receiver", Status: Fail, Reason: err.Error()})
			return rep
		}
		defer r.close()
		e.receiver = r
		if opts.WebhookURL == "" {
			e.webhookURL = r.url
		}
	}
	for _, c := range checks {
		if !selected(opts.Only, c) {
			continue
		}
		start := time.Now()
		e.note = ""
		err := runOne(ctx, e, c)
		res := Result{Surface: c.Surface, Name: c.Name, Status: Pass, Reason: e.note, Duration: time.Since(start)}
		var skip skipError
		switch {
		case errors.As(err, &skip):
			res.Status, res.Reason = Skip, skip.reason
		case err != nil:
			res.Status, res.Reason = Fail, err.Error()
		}
		rep.Results = append(rep.Results, res)
	}
	return rep
}

func runOne(ctx context.Context, e *Env, c Check) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return c.Run(ctx, e)
}

func selected(only []string, c Check) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == c.Surface || o == c.Surface+"/"+c.Name {
			return true
		}
	}
	return false
}

// WriteText writes the readable report: one line per check, grouped by surface, then a total.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	surface := ""
	for _, res := range r.Results {
		if res.Surface != surface {
			surface = res.Surface
			fmt.Fprintf(&b, "%s\n", surface)
		}
		fmt.Fprintf(&b, "  %s  %s", res.Status, res.Name)
		if res.Reason != "" {
			fmt.Fprintf(&b, ": %s", res.Reason)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d checks: %d passed, %d failed, %d skipped\n", len(r.Results), r.count(Pass), r.count(Fail), r.count(Skip))
	_, err := io.WriteString(w, b.String())
	return err
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the report as JUnit XML, one testsuite per surface, for CI systems.
func (r Report) WriteJUnit(w io.Writer) error {
	out := junitSuites{Name: "conformance", Tests: len(r.Results), Failures: r.count(Fail), Skipped: r.count(Skip)}
	index := map[string]int{}
	for _, res := range r.Results {
		i, ok := index[res.Surface]
		if !ok {
			i = len(out.Suites)
			index[res.Surface] = i
			out.Suites = append(out.Suites, junitSuite{Name: res.Surface})
		}
		s := &out.Suites[i]
		c := junitCase{Name: res.Name, Classname: "conformance." + res.Surface, Time: seconds(res.Duration)}
		switch res.Status {
		case Fail:
			c.Failure = &junitMessage{res.Reason}
			s.Failures++
		case Skip:
			c.Skipped = &junitMessage{res.Reason}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for i := range out.Suites {
		var total time.Duration
		for _, res := range r.Results {
			if res.Surface == out.Suites[i].Name {
				total += res.Duration
			}
		}
		out.Suites[i].Time = seconds(total)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Checks is the whole suite, surface by surface.
func Checks() []Check {
	return slices.Concat(smartChecks(), fhirChecks(), moreFHIRChecks(), supplyChecks(), supplyBodyChecks(), exportChecks(), evidenceChecks(), resolverChecks(), resolverSearchChecks(), webhookChecks(), webhookDeliveryChecks(), subscriptionChecks(), budgetChecks(), externalChecks())
}
