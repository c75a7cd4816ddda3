package smart

import (
	"errors"
	"slices"
	"testing"

	"providerdir/catalog"
)

func TestParseScope(t *testing.T) {
	tests := []struct {
		in     string
		typ    string
		rights Rights
		v1     bool
		query  string
		err    bool
	}{
		{in: "system/Practitioner.read", typ: "Practitioner", rights: RightRead | RightSearch, v1: true},
		{in: "system/*.read", typ: "*", rights: RightRead | RightSearch, v1: true},
		{in: "system/*.*", typ: "*", rights: RightRead | RightSearch, v1: true},
		{in: "system/Practitioner.write", typ: "Practitioner", v1: true},
		{in: "system/Practitioner.rs", typ: "Practitioner", rights: RightRead | RightSearch},
		{in: "system/Practitioner.r", typ: "Practitioner", rights: RightRead},
		{in: "system/Location.s", typ: "Location", rights: RightSearch},
		{in: "system/Organization.cruds", typ: "Organization", rights: RightRead | RightSearch},
		{in: "system/Organization.cud", typ: "Organization"},
		{in: "system/*.cruds", typ: "*", rights: RightRead | RightSearch},
		{in: "system/Subscription.*", typ: "Subscription", rights: allRights, v1: true},
		{in: "system/Subscription.write", typ: "Subscription", rights: RightCreate | RightUpdate | RightDelete, v1: true},
		{in: "system/Subscription.cruds", typ: "Subscription", rights: allRights},
		{in: "system/Subscription.cd", typ: "Subscription", rights: RightCreate | RightDelete},
		{in: "user/Practitioner.rs", typ: "Practitioner", rights: RightRead | RightSearch},
		{in: "system/Practitioner.rs?identifier=http://hl7.org/fhir/sid/us-npi|1234567893", typ: "Practitioner", rights: RightRead | RightSearch, query: "identifier=http://hl7.org/fhir/sid/us-npi|1234567893"},
		{in: "system/Patient.read", typ: "Patient", rights: RightRead | RightSearch, v1: true}, // parses; never granted
		{in: "system/Practitioner.sr", err: true}, // out of order
		{in: "system/Practitioner.rr", err: true}, // repeated
		{in: "system/Practitioner.", err: true},
		{in: "system/Practitioner", err: true},
		{in: "system/.read", err: true},
		{in: "system/practitioner.read", err: true},
		{in: "system/Prac-titioner.read", err: true},
		{in: "admin/Practitioner.read", err: true},
		{in: "Practitioner.read", err: true},
		{in: "system/Practitioner.read?x=y", err: true}, // v1 takes no narrowing
		{in: "system/Practitioner.rs?", err: true},
		{in: "system/Practitioner.rs?novalue", err: true},
		{in: "", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sc, err := ParseScope(tt.in)
			if tt.err {
				if !errors.Is(err, ErrScope) {
					t.Fatalf("got %+v, %v; want ErrScope", sc, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Type != tt.typ || sc.Rights != tt.rights || sc.V1 != tt.v1 || sc.Query != tt.query {
				t.Errorf("got %+v", sc)
			}
		})
	}
}

func TestParseScopeList(t *testing.T) {
	got, err := ParseScopeList("openid  system/Practitioner.read offline_access system/*.s")
	if err != nil || len(got) != 2 || got[0].Type != "Practitioner" || got[1].Type != "*" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := ParseScopeList("system/Practitioner.read launch/nonsense"); err == nil {
		t.Error("an unknown non-resource scope was accepted")
	}
	many := ""
	for range maxScopes + 1 {
		many += "system/*.read "
	}
	if _, err := ParseScopeList(many); err == nil {
		t.Error("more than maxScopes accepted")
	}
}

func TestNarrow(t *testing.T) {
	tests := []struct {
		name      string
		requested string
		allowed   []string
		want      []string
	}{
		{"v1 as registered", "system/Practitioner.read", []string{"system/Practitioner.read"}, []string{"system/Practitioner.read"}},
		{"v2 as registered", "system/Practitioner.rs", []string{"system/Practitioner.read"}, []string{"system/Practitioner.rs"}},
		{"wildcard client, typed request", "system/Location.r", []string{"system/*.read"}, []string{"system/Location.r"}},
		{"wildcard request, typed client", "system/*.read", []string{"system/Practitioner.read", "system/Location.s"}, []string{"system/Practitioner.read", "system/Location.s"}},
		{"wildcard both", "system/*.read", []string{"system/*.read"}, []string{"system/*.read"}},
		{"narrower than asked", "system/Practitioner.read", []string{"system/Practitioner.r"}, []string{"system/Practitioner.r"}},
		{"write dropped", "system/Practitioner.cruds", []string{"system/*.read"}, []string{"system/Practitioner.rs"}},
		{"only write", "system/Practitioner.write", []string{"system/*.read"}, nil},
		{"not registered", "system/Organization.read", []string{"system/Practitioner.read"}, nil},
		{"partly registered", "system/Organization.read system/Practitioner.read", []string{"system/Practitioner.read"}, []string{"system/Practitioner.read"}},
		{"unserved type", "system/Patient.read", []string{"system/*.read"}, nil},
		{"user context", "user/Practitioner.read", []string{"system/*.read"}, nil},
		{"narrowing never widened", "system/Practitioner.rs?identifier=x", []string{"system/*.read"}, nil},
		{"type adds to the wildcard", "system/*.r system/Location.s", []string{"system/*.read"}, []string{"system/*.r", "system/Location.rs"}},
		{"type inside the wildcard", "system/*.rs system/Location.r", []string{"system/*.read"}, []string{"system/*.rs"}},
		{"subscription v1 as registered", "system/Subscription.*", []string{"system/Subscription.*"}, []string{"system/Subscription.*"}},
		{"subscription v2 as registered", "system/Subscription.cruds", []string{"system/Subscription.*"}, []string{"system/Subscription.cruds"}},
		{"subscription write not registered", "system/Subscription.cruds", []string{"system/*.read"}, []string{"system/Subscription.rs"}},
		{"wildcard never writes", "system/*.*", []string{"system/Subscription.*"}, []string{"system/Subscription.read"}},
		{"mixed v1 and v2 answers in v2", "system/Practitioner.read system/Location.r", []string{"system/*.read"}, []string{"system/Practitioner.rs", "system/Location.r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseScopeList(tt.requested)
			if err != nil {
				t.Fatal(err)
			}
			var allowed []Scope
			for _, a := range tt.allowed {
				sc, err := ParseScope(a)
				if err != nil {
					t.Fatal(err)
				}
				allowed = append(allowed, sc)
			}
			if got := narrow(req, allowed); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAllows(t *testing.T) {
	tests := []struct {
		scopes []string
		public bool
		typ    string
		i      catalog.Interaction
		want   bool
	}{
		{[]string{"system/Practitioner.read"}, false, "Practitioner", catalog.Read, true},
		{[]string{"system/Practitioner.read"}, false, "Practitioner", catalog.Search, true},
		{[]string{"system/Practitioner.read"}, false, "Organization", catalog.Read, false},
		{[]string{"system/Practitioner.r"}, false, "Practitioner", catalog.Search, false},
		{[]string{"system/Practitioner.s"}, false, "Practitioner", catalog.Read, false},
		{[]string{"system/*.rs"}, false, "HealthcareService", catalog.Search, true},
		{[]string{"system/*.read"}, false, "PractitionerRole", catalog.Read, true},
		{[]string{"user/*.read"}, false, "Practitioner", catalog.Read, false},
		{[]string{"system/Practitioner.rs?identifier=x"}, false, "Practitioner", catalog.Read, false},
		{[]string{"garbage", "system/Location.r"}, false, "Location", catalog.Read, true},
		{nil, false, "Practitioner", catalog.Read, false},
		{nil, true, "Location", catalog.Search, true},
		{nil, true, "Location", catalog.Interaction("create"), false},
		{nil, true, "Subscription", catalog.Read, false},
		{[]string{"system/Subscription.*"}, false, "Subscription", catalog.Create, true},
		{[]string{"system/Subscription.cruds"}, false, "Subscription", catalog.Delete, true},
		{[]string{"system/Subscription.rs"}, false, "Subscription", catalog.Create, false},
		{[]string{"system/*.*"}, false, "Subscription", catalog.Create, false},
		{[]string{"system/*.cruds"}, false, "Subscription", catalog.Delete, false},
		{[]string{"system/*.read"}, false, "Subscription", catalog.Read, true},
		{[]string{"system/Practitioner.cruds"}, false, "Practitioner", catalog.Create, false},
		{[]string{"system/Practitioner.*"}, false, "Practitioner", catalog.Delete, false},
	}
	for _, tt := range tests {
		g := Grant{Scopes: tt.scopes, Public: tt.public}
		if got := g.Allows(tt.typ, tt.i); got != tt.want {
			t.Errorf("%+v.Allows(%s, %s) = %v", g, tt.typ, tt.i, got)
		}
	}
}

func TestValidateAllowed(t *testing.T) {
	got, err := ValidateAllowed([]string{"system/Practitioner.read", "system/*.rs", "system/Practitioner.read", "system/Subscription.*"})
	if err != nil || !slices.Equal(got, []string{"system/Practitioner.read", "system/*.rs", "system/Subscription.*"}) {
		t.Fatalf("%q %v", got, err)
	}
	for _, bad := range [][]string{nil, {"user/Practitioner.read"}, {"system/Patient.read"}, {"system/Practitioner.write"}, {"system/Practitioner.rs?identifier=x"}, {"nonsense"}} {
		if _, err := ValidateAllowed(bad); !errors.Is(err, ErrScope) {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

func BenchmarkAllows(b *testing.B) {
	g := Grant{Scopes: []string{"system/Organization.read", "system/Practitioner.rs"}}
	for b.Loop() {
		if !g.Allows("Practitioner", catalog.Search) {
			b.Fatal("denied")
		}
	}
}
