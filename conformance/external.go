package conformance

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed validate.js
var validateJS string

// externalChecks run tools the project did not write over what the run was served.
func externalChecks() []Check {
	return []Check{{"external", "every served FHIR resource validates with the npm fhir package (R4)", checkFHIRJS}}
}

// maxListedErrors bounds the validator errors a failure quotes.
const maxListedErrors = 5

func checkFHIRJS(ctx context.Context, e *Env) error {
	if e.fhirValidator == "" {
		return Skipf("no validator given (--fhir-validator DIR, a directory where `npm install fhir` ran)")
	}
	modules := filepath.Join(e.fhirValidator, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "fhir")); err != nil {
		return fmt.Errorf("the npm package fhir is not installed under %s", modules)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("node is not on PATH: %v", err)
	}
	if len(e.resources) == 0 {
		return Skipf("the run was served no FHIR resource")
	}
	cmd := exec.CommandContext(ctx, node, "-e", validateJS)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = bytes.NewReader(append(bytes.Join(e.resources, []byte("\n")), '\n'))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("node: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r struct {
		Checked int      `json:"checked"`
		Errors  []string `json:"errors"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return fmt.Errorf("validator output %q: %v", out, err)
	}
	if r.Checked != len(e.resources) {
		return fmt.Errorf("the validator checked %d of %d resources", r.Checked, len(e.resources))
	}
	e.note = fmt.Sprintf("%d resources checked, %d errors", r.Checked, len(r.Errors))
	if len(r.Errors) > 0 {
		listed := r.Errors[:min(len(r.Errors), maxListedErrors)]
		return fmt.Errorf("%s: %s", e.note, strings.Join(listed, "; "))
	}
	return nil
}
