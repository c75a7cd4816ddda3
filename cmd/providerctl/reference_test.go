package main

import (
	"flag"
	"io"
	iofs "io/fs"
	"os"
	"strings"
	"testing"
)

func refEnv(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestReferenceFlag(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/nucc", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/nucc/marker", []byte("newer"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		env     func(string) string
		want    string // a file the chosen set holds
		wantErr string
	}{
		{"built-in by default", nil, refEnv(), "census/NST-EST2024-ALLDATA.csv", ""},
		{"directory from the environment", nil, refEnv("PROVIDERD_REFERENCE", dir), "nucc/marker", ""},
		{"flag over the environment", []string{"--reference", dir}, refEnv("PROVIDERD_REFERENCE", "/nonexistent"), "nucc/marker", ""},
		{"missing directory", []string{"--reference", dir + "/absent"}, refEnv(), "", "invalid --reference: reference directory"},
		{"missing directory in the environment", nil, refEnv("PROVIDERD_REFERENCE", dir+"/absent"), "", "invalid PROVIDERD_REFERENCE"},
		{"a file, not a directory", []string{"--reference", dir + "/nucc/marker"}, refEnv(), "", "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			get := referenceFlag(fs, tt.env)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			files, err := get()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := iofs.Stat(files, tt.want); err != nil {
				t.Errorf("the chosen reference set lacks %s: %v", tt.want, err)
			}
		})
	}
}
