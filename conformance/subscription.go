package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// subscriptionChecks hold the read side of FHIR subscriptions (Subscriptions R5 Backport IG on
// R4) to the requirements: the CapabilityStatement lists Subscription (create, read, delete,
// $status), its topics by canonical URL and the backport IG; the topics advertised are served
// as Basic coded SubscriptionTopic; and writes need a system/Subscription scope.
func subscriptionChecks() []Check {
	const s = "subscriptions"
	return []Check{
		{s, "CapabilityStatement lists Subscription, its topics and the backport IG", checkSubscriptionCapability},
		{s, "GET /SubscriptionTopic lists each advertised topic as a Basic coded SubscriptionTopic", checkTopicListing},
		{s, "POST /Subscription without a system/Subscription scope is 403 insufficient_scope", checkSubscriptionScope},
	}
}

// backportIG names the Subscriptions R5 Backport implementation guide.
const backportIG = "http://hl7.org/fhir/uv/subscriptions-backport/ImplementationGuide/hl7.fhir.uv.subscriptions-backport"

// advertisedTopics reads the CapabilityStatement's Subscription entry and returns its topic
// canonical URLs, checking the entry's interactions and operation and the IG on the way.
func (e *Env) advertisedTopics(ctx context.Context) ([]string, error) {
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/metadata", http.Header{"Accept": {"application/fhir+json"}}, nil)
	if err != nil {
		return nil, err
	}
	var cs struct {
		ImplementationGuide []string `json:"implementationGuide"`
		Rest                []struct {
			Resource []struct {
				Type      string `json:"type"`
				Extension []struct {
					URL            string `json:"url"`
					ValueCanonical string `json:"valueCanonical"`
				} `json:"extension"`
				Interaction []struct {
					Code string `json:"code"`
				} `json:"interaction"`
				Operation []struct {
					Name string `json:"name"`
				} `json:"operation"`
			} `json:"resource"`
		} `json:"rest"`
	}
	if res.status != http.StatusOK || res.json(&cs) != nil || len(cs.Rest) == 0 {
		return nil, fmt.Errorf("metadata: %d %.200s", res.status, res.body)
	}
	if !slices.ContainsFunc(cs.ImplementationGuide, func(g string) bool { return strings.HasPrefix(g, backportIG) }) {
		return nil, fmt.Errorf("implementationGuide %v does not name %s", cs.ImplementationGuide, backportIG)
	}
	for _, r := range cs.Rest[0].Resource {
		if r.Type != "Subscription" {
			continue
		}
		var codes, topics []string
		for _, i := range r.Interaction {
			codes = append(codes, i.Code)
		}
		for _, x := range r.Extension {
			if strings.HasSuffix(x.URL, "/capabilitystatement-subscriptiontopic-canonical") {
				topics = append(topics, x.ValueCanonical)
			}
		}
		for _, want := range []string{"create", "read", "delete"} {
			if !slices.Contains(codes, want) {
				return nil, fmt.Errorf("the Subscription interactions %v lack %s", codes, want)
			}
		}
		if !slices.ContainsFunc(r.Operation, func(o struct {
			Name string `json:"name"`
		}) bool {
			return o.Name == "status"
		}) {
			return nil, fmt.Errorf("the Subscription entry lists no $status operation")
		}
		if len(topics) == 0 {
			return nil, fmt.Errorf("the Subscription entry advertises no capabilitystatement-subscriptiontopic-canonical")
		}
		return topics, nil
	}
	return nil, fmt.Errorf("the CapabilityStatement lists no Subscription")
}

func checkSubscriptionCapability(ctx context.Context, e *Env) error {
	_, err := e.advertisedTopics(ctx)
	return err
}

func checkTopicListing(ctx context.Context, e *Env) error {
	topics, err := e.advertisedTopics(ctx)
	if err != nil {
		return err
	}
	res, err := e.fhirGet(ctx, "SubscriptionTopic", nil)
	if err != nil {
		return err
	}
	if res.status == http.StatusForbidden {
		return Skipf("the client's token holds no SubscriptionTopic read scope")
	}
	listed, err := topicURLs(res)
	if err != nil {
		return err
	}
	for _, t := range topics {
		if !slices.Contains(listed, t) {
			return fmt.Errorf("topic %s advertised but not listed (listed %v)", t, listed)
		}
		one, err := e.fhirGet(ctx, "SubscriptionTopic?url="+url.QueryEscape(t), nil)
		if err != nil {
			return err
		}
		if got, err := topicURLs(one); err != nil || !slices.Equal(got, []string{t}) {
			return fmt.Errorf("search by url=%s found %v (%v)", t, got, err)
		}
	}
	return nil
}

// topicURLs reads a searchset of topics: each a Basic coded SubscriptionTopic carrying its
// canonical URL in the R5 cross-version url extension.
func topicURLs(res response) ([]string, error) {
	var b struct {
		ResourceType string `json:"resourceType"`
		Type         string `json:"type"`
		Entry        []struct {
			Resource struct {
				ResourceType string `json:"resourceType"`
				Code         struct {
					Coding []struct{ System, Code string } `json:"coding"`
				} `json:"code"`
				Extension []struct {
					URL      string `json:"url"`
					ValueURI string `json:"valueUri"`
				} `json:"extension"`
			} `json:"resource"`
		} `json:"entry"`
	}
	if res.status != http.StatusOK || res.json(&b) != nil || b.ResourceType != "Bundle" || b.Type != "searchset" {
		return nil, fmt.Errorf("%s: %d %.200s, want a searchset Bundle", res.url, res.status, res.body)
	}
	var out []string
	for _, en := range b.Entry {
		r := en.Resource
		if r.ResourceType != "Basic" || len(r.Code.Coding) == 0 || r.Code.Coding[0].Code != "SubscriptionTopic" {
			return nil, fmt.Errorf("%s: an entry is not a Basic coded SubscriptionTopic", res.url)
		}
		for _, x := range r.Extension {
			if x.URL == "http://hl7.org/fhir/5.0/StructureDefinition/extension-SubscriptionTopic.url" {
				out = append(out, x.ValueURI)
			}
		}
	}
	return out, nil
}

// checkSubscriptionScope creates nothing: the body is not a Subscription, so a client that
// holds the write scope gets 400 (and the check is skipped), one without it 403 first.
func checkSubscriptionScope(ctx context.Context, e *Env) error {
	tok, err := e.accessToken(ctx)
	if err != nil {
		return err
	}
	res, err := e.do(ctx, http.MethodPost, e.fhirBase()+"/Subscription", http.Header{
		"Authorization": {"Bearer " + tok}, "Content-Type": {"application/fhir+json"}, "Accept": {"application/fhir+json"}},
		strings.NewReader(`{"resourceType":"Parameters"}`))
	if err != nil {
		return err
	}
	if res.status == http.StatusBadRequest {
		return Skipf("the client holds a system/Subscription write scope")
	}
	if res.status != http.StatusForbidden || !strings.Contains(res.header.Get("WWW-Authenticate"), "insufficient_scope") ||
		!strings.Contains(string(res.body), `"OperationOutcome"`) {
		return fmt.Errorf("%d %q %.200s, want 403 insufficient_scope with an OperationOutcome", res.status, res.header.Get("WWW-Authenticate"), res.body)
	}
	return nil
}
