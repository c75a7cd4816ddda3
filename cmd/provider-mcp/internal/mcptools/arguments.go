package mcptools

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"providerdir/ident"
)

// Codes of tool errors for arguments refused before any request: the codes the resolver gives
// the same values, and invalid_argument for arguments that do not fit the tool's input schema.
const (
	CodeInvalidNPI      = "invalid_npi"
	CodeInvalidCCN      = "invalid_ccn"
	CodeInvalidArgument = "invalid_argument"
)

// argument is a tool's input. arguments checks it against the tool's input schema (types,
// required properties, no others, get_quality's enum of types); check then refuses what the
// schema does not say, an identifier of the wrong form, so that a tool sends the resolver only
// identifiers it could hold, each one path segment.
type argument interface{ check() error }

// arguments decodes a call's arguments (absent or null: none) into In once they fit schema;
// otherwise it is the invalid_argument tool error saying why.
func arguments[In any](schema *jsonschema.Resolved, raw json.RawMessage) (In, error) {
	var in In
	var v map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return in, refuse(CodeInvalidArgument, fmt.Errorf("the arguments are not a JSON object: %w", err), argumentsForm)
		}
	}
	if v == nil {
		v = map[string]any{}
	}
	if err := schema.Validate(v); err != nil {
		return in, refuse(CodeInvalidArgument, fmt.Errorf("invalid arguments: %w", err), argumentsForm)
	}
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &in)
	}
	if err != nil {
		return in, refuse(CodeInvalidArgument, fmt.Errorf("invalid arguments: %w", err), argumentsForm)
	}
	return in, nil
}

// argumentsForm is the form arguments take.
const argumentsForm = "the tool's input schema (tools/list) names each argument, its type and the required ones"

func (in npiInput) check() error { return checkNPI(in.NPI) }

// check takes a CCN of six characters, the form GET /ccn serves.
func (in ccnInput) check() error {
	err := ident.ValidateCCN(in.CCN)
	if err == nil && len(in.CCN) != 6 {
		err = fmt.Errorf("invalid CCN %.40q: a certified facility's CCN has six characters", in.CCN)
	}
	return refuse(CodeInvalidCCN, err, "a CCN is a two-character state code and four more, digits or uppercase letters as CMS assigns them")
}

// check takes a CCN of six characters or the ten-character supplier number Care Compare
// publishes ambulatory surgical centers under.
func (in qualityInput) check() error {
	return refuse(CodeInvalidCCN, ident.ValidateCCN(in.CCN),
		"a CCN is six characters (a two-character state code and four more), or an ambulatory surgical center's ten-character supplier number")
}

// check takes any search: its arguments travel as query values, which the client escapes, and
// the resolver answers one it cannot use with its own error.
func (searchInput) check() error { return nil }

// check takes any batch: the NPIs travel in the JSON body, and an entry that is no NPI is null
// in the resolver's answer, as the contract has it.
func (batchInput) check() error { return nil }

func checkNPI(npi string) error {
	return refuse(CodeInvalidNPI, ident.ValidateNPI(npi),
		"an NPI is 10 digits, the last the Luhn check digit over 80840 and the first nine (1234567893 is one)")
}

// refuse is the tool error of an argument that failed its check with err (nil when it passed):
// the code, the failure and the form the argument takes.
func refuse(code string, err error, form string) error {
	if err == nil {
		return nil
	}
	return errorText{ToolError{Code: code, Message: err.Error() + "; " + form + ".",
		Guidance: "The argument is malformed, so no request was sent: fix the input. Do not retry as is."}}
}
