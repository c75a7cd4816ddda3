// Package mcptools is the agent tool server of docs/contracts/resolver-api.md §4: the resolver API
// offered as MCP tools (official Go SDK), each a read-only call of the resolver through the public
// Go client. Every result is the resolver's body as it sent it, every field and the 14-key
// provenance unchanged (check_exclusion's fact is the record's exclusion fact, as sent); every
// failure is a tool error (IsError) carrying the resolver's code and the contract's retry
// guidance, never a protocol error or a crash. Arguments that do not fit the tool's input schema
// (invalid_argument) or of the wrong form (an NPI without its check digit, a CCN of no CMS form)
// are such tool errors too, given before any request.
package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"providerdir/resolverclient"
)

// Name is the server's name in the MCP handshake.
const Name = "provider-mcp"

// instructions tell the agent what the tools are and how to read their answers.
const instructions = `Tools of a US provider directory that resolves healthcare providers across federal sources ` +
	`(national provider registry, OIG exclusion list, PECOS enrollment, Care Compare, Open Payments). ` +
	`Every record and fact carries 14 provenance keys (_source ... _slsa_provenance_url): cite them. ` +
	`A missing fact means unknown, never false. A tool error is a JSON object {"error": {...}} with the resolver's ` +
	`code, whether a retry can help ("retryable") and after how long ("retry_after_seconds").`

// New returns the tool server calling the resolver through c; version is the build's.
func New(c *resolverclient.Client, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Provider directory resolver", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	add(s, &mcp.Tool{Name: "resolve_npi", Title: "Resolve an NPI",
		Description: "Resolve a US healthcare provider by NPI: registry identity (entity type, name, primary taxonomy, " +
			"enumeration date, practice address, PECOS enrollment) and its facts from the other sources (exclusion, " +
			"pecos_enrolled, care_compare_star), each with its own 14-key provenance. A fact that is missing is unknown, never false."},
		func(ctx context.Context, in npiInput) (json.RawMessage, error) { return c.NPIWithFactsRaw(ctx, in.NPI) },
		schemaFor[resolverclient.ProviderWithFacts]())
	add(s, &mcp.Tool{Name: "search_providers", Title: "Search providers",
		Description: "Find providers by name (entity resolution: initials, nicknames, accents, word order and small typos " +
			"still match), narrowed by state and taxonomy, or near a ZIP code or point within a radius in miles (with near, q " +
			"may be left out: the providers nearest first, each with distance_miles from its practice ZIP's Census centroid). Returns ranked candidates with _match_score (confidence the " +
			"candidate is the one meant, not record provenance), the registry record's 14-key provenance, and the exact total; " +
			"resolve a candidate's NPI for its full sourced record."},
		func(ctx context.Context, in searchInput) (json.RawMessage, error) {
			return c.SearchRaw(ctx, resolverclient.SearchParams{Q: in.Q, State: in.State, Taxonomy: in.Taxonomy,
				Near: in.Near, RadiusMiles: in.Radius, Limit: in.Limit, Page: in.Page})
		},
		schemaFor[resolverclient.SearchResult]())
	add(s, &mcp.Tool{Name: "get_facility", Title: "Get a facility",
		Description: "Resolve a facility by its CMS Certification Number (CCN, 6 characters, the first two the state code): " +
			"name, type, ownership, city and state, overall star, with the 14-key provenance of the certification record."},
		func(ctx context.Context, in ccnInput) (json.RawMessage, error) { return c.CCNRaw(ctx, in.CCN) },
		schemaFor[resolverclient.Facility]())
	add(s, &mcp.Tool{Name: "get_quality", Title: "Get quality scores",
		Description: "Care Compare quality of a facility by type and CCN: facility name, overall star, measurement period, " +
			"and measures with national averages. A suppressed (small-sample) measure is null, never zero.",
		InputSchema: withEnum(inputSchema[qualityInput](), "type", resolverclient.QualityTypes...)},
		func(ctx context.Context, in qualityInput) (json.RawMessage, error) {
			return c.QualityRaw(ctx, in.Type, in.CCN)
		},
		schemaFor[resolverclient.Quality]())
	add(s, &mcp.Tool{Name: "check_exclusion", Title: "Check the exclusion list",
		Description: "Whether an NPI is on the OIG exclusion list (LEIE) as of the list's snapshot: status excluded, " +
			"not_excluded or unknown, with the exclusion fact and its 14-key provenance. unknown means the list could " +
			"not be consulted; never read it as not excluded."},
		func(ctx context.Context, in npiInput) (json.RawMessage, error) {
			body, err := c.NPIWithFactsRaw(ctx, in.NPI)
			if err != nil {
				return nil, err
			}
			return exclusion(body)
		},
		exclusionSchema())
	add(s, &mcp.Tool{Name: "get_payments", Title: "Get industry payments",
		Description: "Open Payments made by manufacturers to a provider (by NPI): program year (program_years lists every " +
			"year with payments), total in USD, record count and the records. The match to the source is by name and address, " +
			"so each record carries its match_method and _confidence, and the record's _confidence is the weakest; " +
			"payments below the publisher's de-minimis threshold are absent."},
		func(ctx context.Context, in npiInput) (json.RawMessage, error) { return c.PaymentsRaw(ctx, in.NPI) },
		schemaFor[resolverclient.Payments]())
	add(s, &mcp.Tool{Name: "resolve_npi_batch", Title: "Resolve NPIs in a batch",
		Description: fmt.Sprintf("Resolve up to %d NPIs in one call (one request against the hourly budget). Results are "+
			"in request order, each the provider record with its 14-key provenance, or null for an NPI that could not be resolved.",
			resolverclient.MaxBatch)},
		func(ctx context.Context, in batchInput) (json.RawMessage, error) { return c.BatchNPIRaw(ctx, in.NPIs) },
		schemaFor[resolverclient.BatchResult]())
	return s
}

// Inputs of the tools.
type (
	npiInput struct {
		NPI string `json:"npi" jsonschema:"the provider's 10-digit National Provider Identifier, the last digit its check digit"`
	}
	searchInput struct {
		Q        string  `json:"q,omitempty" jsonschema:"the provider's name, as well as it is known; may be left out with near"`
		State    string  `json:"state,omitempty" jsonschema:"two-letter state code of the practice address"`
		Taxonomy string  `json:"taxonomy,omitempty" jsonschema:"NUCC taxonomy code, for example 207Q00000X"`
		Near     string  `json:"near,omitempty" jsonschema:"a 5-digit ZIP code or latitude,longitude to search around"`
		Radius   float64 `json:"radius,omitempty" jsonschema:"miles around near, 10 by default, at most 100"`
		Limit    int     `json:"limit,omitempty" jsonschema:"page size, at most 100"`
		Page     int     `json:"page,omitempty" jsonschema:"page number, from 1"`
	}
	ccnInput struct {
		CCN string `json:"ccn" jsonschema:"the facility's CMS Certification Number"`
	}
	qualityInput struct {
		Type string `json:"type" jsonschema:"the facility type"`
		CCN  string `json:"ccn" jsonschema:"the facility's CMS Certification Number, or an ambulatory surgical center's 10-character supplier number"`
	}
	batchInput struct {
		NPIs []string `json:"npis" jsonschema:"the NPIs to resolve, at most 1,000"`
	}
)

// add registers a read-only tool whose structured result is the JSON call returns, as it is,
// described by output (open: the resolver may add fields within v1). Its input schema, where t
// does not set it, is derived from In. Arguments are checked against that schema here, not by
// the SDK, so that a refusal is a tool error of code invalid_argument like every other; the
// arguments' own check follows, then the call. Every failure is a tool error.
func add[In argument](s *mcp.Server, t *mcp.Tool, call func(context.Context, In) (json.RawMessage, error), output *jsonschema.Schema) {
	if t.InputSchema == nil {
		t.InputSchema = inputSchema[In]()
	}
	input, err := t.InputSchema.(*jsonschema.Schema).Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcptools: input schema of %s: %v", t.Name, err))
	}
	t.OutputSchema = open(output)
	f := false
	t.Annotations = &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &f, OpenWorldHint: &f}
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := arguments[In](input, req.Params.Arguments)
		if err == nil {
			err = in.check()
		}
		if err != nil {
			return failed(err), nil
		}
		body, err := call(ctx, in)
		if err != nil {
			return failed(toolError(err)), nil
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, body); err != nil {
			return failed(toolError(fmt.Errorf("the resolver's answer: %w", err))), nil
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(compact.Bytes()),
			Content: []mcp.Content{&mcp.TextContent{Text: compact.String()}}}, nil
	})
}

// failed is the tool error result of err, its text the error's.
func failed(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// open lets every object of s hold properties it does not list: a tool result is the
// resolver's body, to which v1 may add fields.
func open(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		open(p)
	}
	open(s.Items)
	return s
}

// withEnum restricts the string property prop of s to values.
func withEnum(s *jsonschema.Schema, prop string, values ...string) *jsonschema.Schema {
	for _, v := range values {
		s.Properties[prop].Enum = append(s.Properties[prop].Enum, v)
	}
	return s
}

// inputSchema is the schema of the arguments In: schemaFor's, except that no argument may be
// null (a slice's schema admits null by default), so that clients read each one's type plainly.
func inputSchema[In any]() *jsonschema.Schema {
	s := schemaFor[In]()
	for _, p := range s.Properties {
		notNull(p)
	}
	return s
}

// schemaFor is the JSON schema of T as the SDK infers it, with two changes. The top level is an
// object, never null, even for a pointer T: MCP requires a tool's schemas to be objects. And a
// json.RawMessage (a fact's value, whose shape depends on its type) admits any JSON value,
// rather than an array of bytes.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Description: "any JSON value; its shape depends on the fact's type"},
	}})
	if err != nil {
		panic(fmt.Sprintf("mcptools: schema of %T: %v", *new(T), err))
	}
	return notNull(s)
}

// notNull takes null out of a schema's types ["null", X].
func notNull(s *jsonschema.Schema) *jsonschema.Schema {
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	return s
}
