package fhir

import (
	"encoding/json"
	"errors"
	"net/http"
)

// writeParamError writes a rejected parameter as a 400 OperationOutcome whose issue names the
// parameter in its diagnostics and its expression.
func writeParamError(w http.ResponseWriter, r *http.Request, err error) {
	var pe *paramError
	if !errors.As(err, &pe) {
		Error(w, r, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	WriteOutcome(w, r, http.StatusBadRequest, "error", pe.code, pe.Error())
}

func warning(code, diagnostics string) Issue {
	return Issue{Severity: "warning", Code: code, Diagnostics: diagnostics}
}

// warningOutcome renders warnings as an OperationOutcome for a searchset entry (search.mode
// "outcome").
func warningOutcome(issues []Issue) []byte {
	b, _ := json.Marshal(OperationOutcome{ResourceType: "OperationOutcome", Issue: issues})
	return b
}
