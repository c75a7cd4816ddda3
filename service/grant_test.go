package service

import (
	"context"
	"testing"

	"providerdir/catalog"
	"providerdir/internal/config"
	"providerdir/smart"
	"providerdir/webhook"
)

// The FHIR surface finds a request's grant where SMART's Protect put it, and none elsewhere.
func TestFHIRGrantFromSMART(t *testing.T) {
	c := fhirConfig(config.Config{BaseURL: "https://pd.example.org"}, nil, nil, webhook.AddressPolicy{})
	tests := []struct {
		name                   string
		ctx                    context.Context
		found, read, sandboxed bool
	}{
		{"no grant", context.Background(), false, false, false},
		{"sandbox read", smart.WithGrant(context.Background(), smart.Grant{Scopes: []string{"system/Practitioner.r"}, Sandbox: true}), true, true, true},
		{"search only", smart.WithGrant(context.Background(), smart.Grant{Scopes: []string{"system/Practitioner.s"}}), true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := c.GrantFrom(tt.ctx)
			if ok != tt.found {
				t.Fatalf("found %v, want %v", ok, tt.found)
			}
			if !ok {
				return
			}
			if got := g.Allows("Practitioner", catalog.Read); got != tt.read {
				t.Errorf("read allowed %v, want %v", got, tt.read)
			}
			if got := g.Sandboxed(); got != tt.sandboxed {
				t.Errorf("sandboxed %v, want %v", got, tt.sandboxed)
			}
		})
	}
}
