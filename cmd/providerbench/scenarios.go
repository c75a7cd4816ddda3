package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"providerdir/match/queryset"
)

// buildScenarios lists what is measured: the FHIR scenarios the server's data allows, and those
// whose credentials or query set the options give. It also returns the labelled query set.
func buildScenarios(client *http.Client, base string, o options) ([]scenario, []queryset.Query, error) {
	scenarios, err := discover(client, base)
	if err != nil {
		return nil, nil, err
	}
	if len(o.bearer) > 0 {
		sc, err := supplyScenario(client, base, o.bearer)
		if err != nil {
			return nil, nil, err
		}
		scenarios = append(scenarios, sc, exportScenario(sc, o.bearer))
	}
	if o.smartKey != "" {
		sc, err := tokenScenario(o.smartKey, o.clientID, base+tokenPath)
		if err != nil {
			return nil, nil, err
		}
		scenarios = append(scenarios, sc)
		if sc, err = tokenReadScenario(client, o.smartKey, o.clientID, base); err != nil {
			return nil, nil, err
		}
		scenarios = append(scenarios, sc)
	}
	if o.queries == "" {
		return scenarios, nil, nil
	}
	labelled, err := queryset.Read(o.queries)
	if err != nil {
		return nil, nil, err
	}
	sc, err := resolverScenarios(o.serviceKeys, labelled, o.nearZIP)
	if err != nil {
		return nil, nil, err
	}
	return append(scenarios, sc...), labelled, nil
}

// scenario is one request shape, with a concrete path found in the served data. Request i of a
// run gets header(i) and body(i) when they are set; prepare readies n such requests before a run.
type scenario struct {
	name    string
	method  string
	path    string
	header  func(i int) http.Header
	body    func(i int) string
	prepare func(n int) error
	// metered scenarios count against a quota or consume one-time credentials.
	metered bool
	// rates, when set, are the offered rates of this scenario instead of the run's: a request
	// that carries a thousand look-ups is offered at tens a second, not thousands.
	rates []int
	// target, when set, is what the service promises of this scenario at one offered rate; the
	// row of that rate says whether the run met it.
	target *target
}

// get is a scenario of plain GETs of path.
func get(name, path string) scenario {
	return scenario{name: name, method: http.MethodGet, path: path, prepare: func(int) error { return nil }}
}

// request builds request i of sc against base.
func (sc scenario) request(ctx context.Context, base string, i int) *http.Request {
	var body io.Reader
	if sc.body != nil {
		body = strings.NewReader(sc.body(i))
	}
	req, _ := http.NewRequestWithContext(ctx, sc.method, base+sc.path, body)
	if sc.header != nil {
		req.Header = sc.header(i)
	}
	return req
}

// supplyScenario reads the by-state table of the first specialty the supply API lists, with each
// key in turn.
func supplyScenario(c *http.Client, base string, keys []string) (scenario, error) {
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/specialties", nil)
	req.Header.Set("Authorization", "Bearer "+keys[0])
	var list struct {
		Data []struct {
			Slug string `json:"slug"`
		} `json:"data"`
	}
	if err := doJSON(c, req, &list); err != nil {
		return scenario{}, fmt.Errorf("list the specialties (are --bearer-file's keys supply API keys?): %w", err)
	}
	if len(list.Data) == 0 {
		return scenario{}, errors.New("the supply API lists no specialty")
	}
	sc := get("supply by-state", "/v1/specialties/"+url.PathEscape(list.Data[0].Slug)+"/by-state")
	sc.header = func(i int) http.Header {
		return http.Header{"Authorization": {"Bearer " + keys[i%len(keys)]}}
	}
	sc.metered = true
	return sc, nil
}

// exportRates are the offered rates of the export scenario: each answer is a whole dataset,
// tens of times a by-state answer.
var exportRates = []int{100, 250}

// exportScenario streams the LLM-ready export of the by-state scenario's specialty as ndjson,
// with the same keys in turn.
func exportScenario(byState scenario, keys []string) scenario {
	slug := strings.TrimSuffix(strings.TrimPrefix(byState.path, "/v1/specialties/"), "/by-state")
	sc := get("supply export ndjson", "/v1/exports/"+slug+"-supply/llm-ready?format=ndjson")
	sc.header, sc.metered, sc.rates = byState.header, true, exportRates
	return sc
}

// discover picks real ids and codes from the server so that every scenario hits data.
func discover(c *http.Client, base string) ([]scenario, error) {
	var bundle struct {
		Entry []struct {
			Resource struct {
				ID         string `json:"id"`
				Identifier []struct {
					System, Value string
				} `json:"identifier"`
				Name []struct {
					Family string `json:"family"`
				} `json:"name"`
			} `json:"resource"`
		} `json:"entry"`
	}
	if err := getJSON(c, base+"/fhir/Practitioner?_count=1", &bundle); err != nil {
		return nil, fmt.Errorf("find a practitioner (is providerd running with --fhir-public-read?): %w", err)
	}
	if len(bundle.Entry) == 0 {
		return nil, errors.New("the server holds no Practitioner")
	}
	p := bundle.Entry[0].Resource
	npi := p.ID
	for _, id := range p.Identifier {
		if id.System == "http://hl7.org/fhir/sid/us-npi" {
			npi = id.Value
		}
	}
	family := "a"
	if len(p.Name) > 0 && p.Name[0].Family != "" {
		family = namePrefix(p.Name[0].Family)
	}
	return []scenario{
		withTarget(get("read Practitioner by id", "/fhir/Practitioner/"+p.ID), latencyTarget(targetRate, 2*time.Millisecond, 0.6)),
		withTarget(get("Practitioner?identifier=", "/fhir/Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|"+npi), latencyTarget(targetRate, 2*time.Millisecond, 0.6)),
		withTarget(get("PractitionerRole?specialty=&_include", "/fhir/PractitionerRole?specialty=http://nucc.org/provider-taxonomy|207RC0000X&_include=PractitionerRole:practitioner"), latencyTarget(targetRate, 5*time.Millisecond, 0.4)),
		withTarget(get("Practitioner?name= (prefix)", "/fhir/Practitioner?name="+url.QueryEscape(family)), latencyTarget(targetRate, 5*time.Millisecond, 0.3)),
	}, nil
}

// targetRate is the offered rate the service's targets for FHIR reads, searches and tokens
// are set at (docs/BENCHMARKS.md, Method).
const targetRate = 2000

// withTarget returns sc with target t.
func withTarget(sc scenario, t *target) scenario {
	sc.target = t
	return sc
}

// namePrefix is the prefix a person might type for a family name: its first three letters, in
// lower case, cut at a character boundary (a name may be accented).
func namePrefix(family string) string {
	r := []rune(strings.ToLower(family))
	return string(r[:min(3, len(r))])
}

func getJSON(c *http.Client, url string, v any) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	return doJSON(c, req, v)
}

// doJSON sends req and decodes its 200 answer into v.
func doJSON(c *http.Client, req *http.Request, v any) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", req.Method, req.URL, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
