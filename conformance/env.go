package conformance

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Env is what the checks share during a run: the deployment's address and credentials, one HTTP
// client, and what earlier checks learned (a token, sample resources), each fetched once.
type Env struct {
	creds Credentials
	hc    *http.Client

	token    string
	tokenErr error
	samples  map[string]sample

	// seen and resources are every FHIR resource the run was served, for the external validator.
	seen      map[string]struct{}
	resources [][]byte
	// fhirValidator is the directory where the npm fhir package is installed, "" for none.
	fhirValidator string
	// note is what the running check reports beside its outcome.
	note string
	// gone, exhaust and webhookURL are Options.Gone, Options.ExhaustBudgets and
	// Options.WebhookURL (DefaultWebhookURL when that is empty).
	gone       string
	exhaust    bool
	webhookURL string
	// receiver is the run's own webhook receiver (Options.WebhookReceiver), nil without one.
	receiver *receiver
}

// sample is the first page of served resources of a type, whose ids and values the read and
// search checks ask for.
type sample struct {
	res []map[string]any
	err error
}

func newEnv(opts Options) *Env {
	hc := opts.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	c := opts.Credentials
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return &Env{creds: c, hc: hc, samples: map[string]sample{}, seen: map[string]struct{}{}, fhirValidator: opts.FHIRValidator,
		gone: opts.Gone, exhaust: opts.ExhaustBudgets, webhookURL: cmp.Or(opts.WebhookURL, DefaultWebhookURL)}
}

// response is a read HTTP answer.
type response struct {
	status int
	header http.Header
	body   []byte
	url    string
}

// json decodes the body into v, saying what was answered when it is not JSON.
func (r response) json(v any) error {
	if err := json.Unmarshal(r.body, v); err != nil {
		return fmt.Errorf("%s: body is not JSON (%v): %.200s", r.url, err, r.body)
	}
	return nil
}

// do sends one request and reads the whole answer.
func (e *Env) do(ctx context.Context, method, u string, header http.Header, body io.Reader) (response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return response{}, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	res, err := e.hc.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, u, err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b, url: method + " " + u}, nil
}

// fhirBase is the FHIR surface's base URL.
func (e *Env) fhirBase() string { return e.creds.BaseURL + "/fhir" }

// accessToken returns a token from the deployment's token endpoint for the configured client,
// asked for once per run.
func (e *Env) accessToken(ctx context.Context) (string, error) {
	if e.token != "" || e.tokenErr != nil {
		return e.token, e.tokenErr
	}
	e.token, e.tokenErr = e.requestToken(ctx)
	return e.token, e.tokenErr
}

func (e *Env) requestToken(ctx context.Context) (string, error) {
	if e.creds.SMARTClientID == "" {
		return "", Skipf("no SMART client id given")
	}
	key, err := e.creds.PrivateKey()
	if err != nil {
		return "", Skipf("%v", err)
	}
	tokenURL, err := e.tokenEndpoint(ctx)
	if err != nil {
		return "", err
	}
	signed, err := validAssertion(e.creds.SMARTClientID, tokenURL, time.Now()).sign(key)
	if err != nil {
		return "", err
	}
	t, err := e.exchange(ctx, tokenURL, tokenForm(signed))
	if err != nil {
		return "", err
	}
	if t.status != http.StatusOK || t.AccessToken == "" {
		return "", fmt.Errorf("token endpoint answered %d %s", t.status, t.Error)
	}
	return t.AccessToken, nil
}

// tokenEndpoint is the token URL the deployment advertises.
func (e *Env) tokenEndpoint(ctx context.Context) (string, error) {
	var conf struct {
		TokenEndpoint string `json:"token_endpoint"`
	}
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/.well-known/smart-configuration", nil, nil)
	if err != nil {
		return "", err
	}
	if err := res.json(&conf); err != nil {
		return "", err
	}
	if conf.TokenEndpoint == "" {
		return "", fmt.Errorf("smart-configuration has no token_endpoint")
	}
	return conf.TokenEndpoint, nil
}

// fhirGet asks the FHIR surface with the run's token. path is relative to the FHIR base, or an
// absolute URL (a paging link).
func (e *Env) fhirGet(ctx context.Context, path string, header http.Header) (response, error) {
	return e.fhirDo(ctx, http.MethodGet, path, header, "")
}

func (e *Env) fhirDo(ctx context.Context, method, path string, header http.Header, form string) (response, error) {
	tok, err := e.accessToken(ctx)
	if err != nil {
		return response{}, err
	}
	h := http.Header{"Authorization": {"Bearer " + tok}, "Accept": {"application/fhir+json"}}
	for k, vs := range header {
		h[k] = vs
	}
	u := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		u = e.fhirBase() + "/" + strings.TrimLeft(path, "/")
	}
	var body io.Reader
	if method == http.MethodPost {
		h.Set("Content-Type", "application/x-www-form-urlencoded")
		body = strings.NewReader(form)
	}
	res, err := e.do(ctx, method, u, h, body)
	if err == nil && res.status == http.StatusOK {
		e.collect(res.body)
	}
	return res, err
}

// collect keeps each resource a FHIR answer carries (the resource, or a Bundle's entries), once
// per type, id and version, for the external validator.
func (e *Env) collect(body []byte) {
	var doc struct {
		ResourceType string `json:"resourceType"`
		Entry        []struct {
			Resource json.RawMessage `json:"resource"`
		} `json:"entry"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return
	}
	if doc.ResourceType != "Bundle" {
		e.keep(body)
		return
	}
	for _, en := range doc.Entry {
		e.keep(en.Resource)
	}
}

func (e *Env) keep(raw json.RawMessage) {
	var id struct {
		ResourceType string `json:"resourceType"`
		ID           string `json:"id"`
		Meta         struct {
			VersionID   string `json:"versionId"`
			LastUpdated string `json:"lastUpdated"`
		} `json:"meta"`
	}
	if json.Unmarshal(raw, &id) != nil || id.ResourceType == "" {
		return
	}
	k := id.ResourceType + "/" + id.ID + "/" + id.Meta.VersionID + "/" + id.Meta.LastUpdated
	if _, ok := e.seen[k]; ok {
		return
	}
	compact := new(bytes.Buffer)
	if json.Compact(compact, raw) != nil {
		return
	}
	e.seen[k] = struct{}{}
	e.resources = append(e.resources, compact.Bytes())
}

// bundle is the part of a searchset Bundle the checks read.
type bundle struct {
	ResourceType string `json:"resourceType"`
	Type         string `json:"type"`
	Total        *int   `json:"total"`
	Link         []struct {
		Relation string `json:"relation"`
		URL      string `json:"url"`
	} `json:"link"`
	Entry []struct {
		FullURL  string         `json:"fullUrl"`
		Resource map[string]any `json:"resource"`
		Search   struct {
			Mode string `json:"mode"`
		} `json:"search"`
	} `json:"entry"`
}

// next is the Bundle's next link, or "".
func (b bundle) next() string {
	for _, l := range b.Link {
		if l.Relation == "next" {
			return l.URL
		}
	}
	return ""
}

// matches lists the "Type/id" of the entries in search mode match.
func (b bundle) matches() []string {
	var out []string
	for _, en := range b.Entry {
		if en.Search.Mode == "match" {
			out = append(out, fmt.Sprintf("%v/%v", en.Resource["resourceType"], en.Resource["id"]))
		}
	}
	return out
}

// search runs a FHIR search by GET and decodes its Bundle, which must be a 200 searchset.
func (e *Env) search(ctx context.Context, typ string, q url.Values) (bundle, error) {
	return e.searchWith(ctx, typ, q, nil)
}

// searchStrict is search with Prefer: handling=strict, under which a server refuses a parameter
// it does not support rather than ignore it and answer as if it had not been sent.
func (e *Env) searchStrict(ctx context.Context, typ string, q url.Values) (bundle, error) {
	return e.searchWith(ctx, typ, q, http.Header{"Prefer": {"handling=strict"}})
}

func (e *Env) searchWith(ctx context.Context, typ string, q url.Values, h http.Header) (bundle, error) {
	res, err := e.fhirGet(ctx, typ+"?"+q.Encode(), h)
	if err != nil {
		return bundle{}, err
	}
	return searchBundle(res)
}

// searchBoth runs a search by GET and by POST [type]/_search, as FHIR clients send it either
// way: both must answer the same entries (mode, type and id, in order) and total. It returns
// the GET answer.
func (e *Env) searchBoth(ctx context.Context, typ string, q url.Values) (bundle, error) {
	get, err := e.search(ctx, typ, q)
	if err != nil {
		return bundle{}, err
	}
	res, err := e.fhirDo(ctx, http.MethodPost, typ+"/_search", nil, q.Encode())
	if err != nil {
		return bundle{}, err
	}
	post, err := searchBundle(res)
	if err != nil {
		return bundle{}, err
	}
	if g, p := get.entries(), post.entries(); !slices.Equal(g, p) || fmt.Sprint(deref(get.Total)) != fmt.Sprint(deref(post.Total)) {
		return bundle{}, fmt.Errorf("%s?%s: GET answered %v (total %v), POST _search %v (total %v)", typ, q.Encode(), g, deref(get.Total), p, deref(post.Total))
	}
	return get, nil
}

// entries lists each entry of a Bundle as "mode Type/id".
func (b bundle) entries() []string {
	out := make([]string, 0, len(b.Entry))
	for _, en := range b.Entry {
		out = append(out, fmt.Sprintf("%s %v/%v", en.Search.Mode, en.Resource["resourceType"], en.Resource["id"]))
	}
	return out
}

func searchBundle(res response) (bundle, error) {
	if res.status != http.StatusOK {
		return bundle{}, fmt.Errorf("%s: %d, want 200: %.300s", res.url, res.status, res.body)
	}
	var b bundle
	if err := res.json(&b); err != nil {
		return bundle{}, err
	}
	if b.ResourceType != "Bundle" || b.Type != "searchset" {
		return bundle{}, fmt.Errorf("%s: a %s of type %q, want a searchset Bundle", res.url, b.ResourceType, b.Type)
	}
	return b, nil
}

// samplePage is how many served resources of a type the checks choose their samples from.
const samplePage = 50

// samplesOf returns the first page of served resources of typ, fetched once: the checks take
// their ids and search values from real data.
func (e *Env) samplesOf(ctx context.Context, typ string) ([]map[string]any, error) {
	if s, ok := e.samples[typ]; ok {
		return s.res, s.err
	}
	var s sample
	b, err := e.search(ctx, typ, url.Values{"_count": {fmt.Sprint(samplePage)}})
	switch {
	case err != nil:
		s.err = err
	case len(b.Entry) == 0:
		s.err = Skipf("the deployment serves no %s this client may read", typ)
	default:
		for _, en := range b.Entry {
			s.res = append(s.res, en.Resource)
		}
	}
	e.samples[typ] = s
	return s.res, s.err
}

// sampleOf returns the first served resource of typ.
func (e *Env) sampleOf(ctx context.Context, typ string) (map[string]any, error) {
	rs, err := e.samplesOf(ctx, typ)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// v1 asks the supply API with the given bearer key ("" for none).
func (e *Env) v1(ctx context.Context, method, path, key string) (response, error) {
	h := http.Header{"Accept": {"application/json"}}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return e.do(ctx, method, e.creds.BaseURL+"/v1"+path, h, nil)
}

// supplyKey is the supply API key, or a skip when none was given.
func (e *Env) supplyKey() (string, error) {
	if e.creds.SupplyKey == "" {
		return "", Skipf("no supply API key given")
	}
	return e.creds.SupplyKey, nil
}
