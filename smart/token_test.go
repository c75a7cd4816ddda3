package smart_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"

	"providerdir/smart"
)

// TestClientFlow is a backend client end to end: RSA and EC keys, a token, a FHIR read and
// search with it, and the token response's shape and headers.
func TestClientFlow(t *testing.T) {
	e := newEnv(t)
	for _, k := range []testKey{rsaKey(t, "a"), ecKey(t, "a")} {
		t.Run(k.alg.String(), func(t *testing.T) {
			id := e.addClient(t, k, "system/Practitioner.read", "system/Organization.rs")
			tr, err := smart.RequestToken(context.Background(), http.DefaultClient, e.tokenURL, id, k.priv,
				"system/Practitioner.read system/Organization.read")
			if err != nil {
				t.Fatal(err)
			}
			if tr.TokenType != "bearer" || tr.ExpiresIn != 300 || tr.Scope != "system/Practitioner.read system/Organization.read" {
				t.Errorf("token response %+v", tr)
			}
			status, _, body := e.get(t, "/fhir/Practitioner/1234567893", tr.AccessToken)
			if status != http.StatusOK {
				t.Fatalf("read: %d %v", status, body)
			}
			g := body["grant"].(map[string]any)
			if g["ClientID"] != id || g["Sandbox"] != false || g["Public"] != false {
				t.Errorf("grant %v", g)
			}
			if status, _, _ := e.get(t, "/fhir/Organization", tr.AccessToken); status != http.StatusOK {
				t.Errorf("search Organization: %d", status)
			}
			if status, _, _ := e.get(t, "/fhir/Location/1", tr.AccessToken); status != http.StatusForbidden {
				t.Errorf("read Location without its scope: %d, want 403", status)
			}
		})
	}
}

func TestTokenResponseHeaders(t *testing.T) {
	e := newEnv(t)
	k := ecKey(t, "a")
	id := e.addClient(t, k)
	ok := e.postToken(t, tokenForm(sign(t, k.priv, k.alg, k.kid, e.claims(id), nil), "system/*.read"))
	bad := e.postToken(t, url.Values{"grant_type": {"password"}})
	for name, r := range map[string]oauthReply{"success": ok, "error": bad} {
		if r.header.Get("Cache-Control") != "no-store" || r.header.Get("Pragma") != "no-cache" ||
			!strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s headers: %v", name, r.header)
		}
	}
	if ok.Scope != "system/*.read" {
		t.Errorf("scope %q", ok.Scope)
	}
}

// TestAttacks is the table: every broken or hostile token request is refused with the
// right status and RFC 6749 error code, and an authentication failure says nothing more than
// invalid_client.
func TestAttacks(t *testing.T) {
	e := newEnv(t)
	a, b := rsaKey(t, "a"), ecKey(t, "b")
	idA := e.addClient(t, a, "system/Practitioner.read")
	idB := e.addClient(t, b, "system/*.read")
	disabled := rsaKey(t, "disabled")
	idDisabled := e.addClient(t, disabled)
	if _, err := smart.SetClientEnabled(context.Background(), e.st, idDisabled, false); err != nil {
		t.Fatal(err)
	}
	pubA, _ := a.priv.PublicKey()
	pubJSON, _ := json.Marshal(pubA)
	rs256, _ := a.priv.Clone()
	rs256.Remove(jwk.AlgorithmKey)

	with := func(id string, change func(map[string]any)) map[string]any {
		c := e.claims(id)
		change(c)
		return c
	}
	now := e.clock.Now()
	replayed := sign(t, a.priv, a.alg, a.kid, e.claims(idA), nil)
	if r := e.postToken(t, tokenForm(replayed, "system/Practitioner.read")); r.status != http.StatusOK {
		t.Fatalf("first use of the replayed assertion: %d %s", r.status, r.Error)
	}
	valid := func() string { return sign(t, a.priv, a.alg, a.kid, e.claims(idA), nil) }

	c := rsaKey(t, "c") // registered to nobody
	tests := []struct {
		name   string
		form   url.Values
		status int
		code   string
		reason string // what the log must say for an invalid_client
	}{
		{"bad signature", tokenForm(flipSignature(valid()), "system/Practitioner.read"), 401, "invalid_client", "signature verification failed"},
		{"other client's key, own kid", tokenForm(sign(t, c.priv, c.alg, a.kid, e.claims(idA), nil), "system/Practitioner.read"), 401, "invalid_client", "signature verification failed"},
		{"other client's key and kid", tokenForm(sign(t, b.priv, b.alg, b.kid, e.claims(idA), nil), "system/Practitioner.read"), 401, "invalid_client", "no key with kid"},
		{"wrong alg RS256", tokenForm(sign(t, rs256, jwa.RS256(), a.kid, e.claims(idA), nil), "system/Practitioner.read"), 401, "invalid_client", `alg \"RS256\"`},
		{"HS384 with the public key as secret", tokenForm(sign(t, pubJSON, jwa.HS384(), a.kid, e.claims(idA), nil), "system/Practitioner.read"), 401, "invalid_client", `alg \"HS384\"`},
		{"alg none", tokenForm(unsigned(a.kid, e.claims(idA)), "system/Practitioner.read"), 401, "invalid_client", `alg \"none\"`},
		{"ES384 header on an RSA kid", tokenForm(sign(t, b.priv, jwa.ES384(), a.kid, e.claims(idA), nil), "system/Practitioner.read"), 401, "invalid_client", "fits ES384"},
		{"expired", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["exp"] = now.Add(-time.Minute).Unix() }), nil), "system/Practitioner.read"), 401, "invalid_client", "token is expired"},
		{"exp 10 minutes ahead", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["exp"] = now.Add(10 * time.Minute).Unix() }), nil), "system/Practitioner.read"), 401, "invalid_client", "more than 5m0s ahead"},
		{"exp as a string", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["exp"] = strconv.FormatInt(now.Add(time.Minute).Unix(), 10) }), nil), "system/Practitioner.read"), 401, "invalid_client", "not a NumericDate"},
		{"exp null", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["exp"] = nil }), nil), "system/Practitioner.read"), 401, "invalid_client", "not a NumericDate"},
		{"iat as a string", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["iat"] = strconv.FormatInt(now.Unix(), 10) }), nil), "system/Practitioner.read"), 401, "invalid_client", "not a NumericDate"},
		{"nbf as a string", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["nbf"] = strconv.FormatInt(now.Unix(), 10) }), nil), "system/Practitioner.read"), 401, "invalid_client", "not a NumericDate"},
		{"exp as a date", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["exp"] = now.Add(time.Minute).Format(time.RFC3339) }), nil), "system/Practitioner.read"), 401, "invalid_client", "not a NumericDate"},
		{"missing exp", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { delete(c, "exp") }), nil), "system/Practitioner.read"), 401, "invalid_client", `claim \"exp\" is missing`},
		{"wrong aud", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["aud"] = "https://elsewhere.example/token" }), nil), "system/Practitioner.read"), 401, "invalid_client", `\"aud\" not satisfied`},
		{"iss != sub", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["sub"] = idB }), nil), "system/Practitioner.read"), 401, "invalid_client", `claim \"sub\"`},
		{"unknown client", tokenForm(sign(t, a.priv, a.alg, a.kid, e.claims("0123456789abcdef0123456789abcdef"), nil), "system/Practitioner.read"), 401, "invalid_client", "unknown client"},
		{"disabled client", tokenForm(sign(t, disabled.priv, disabled.alg, disabled.kid, e.claims(idDisabled), nil), "system/*.read"), 401, "invalid_client", "client is disabled"},
		{"replayed jti", tokenForm(replayed, "system/Practitioner.read"), 401, "invalid_client", "was already used"},
		{"missing jti", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { delete(c, "jti") }), nil), "system/Practitioner.read"), 401, "invalid_client", `claim \"jti\" is missing`},
		{"empty jti", tokenForm(sign(t, a.priv, a.alg, a.kid, with(idA, func(c map[string]any) { c["jti"] = "" }), nil), "system/Practitioner.read"), 401, "invalid_client", "jti"},
		{"missing kid", tokenForm(sign(t, a.priv, a.alg, "", e.claims(idA), nil), "system/Practitioner.read"), 401, "invalid_client", "no kid"},
		{"jku on an inline-JWKS client", tokenForm(sign(t, a.priv, a.alg, a.kid, e.claims(idA), map[string]any{"jku": "https://attacker.example/jwks.json"}), "system/Practitioner.read"), 401, "invalid_client", "jku"},
		{"unknown crit header", tokenForm(sign(t, a.priv, a.alg, a.kid, e.claims(idA), map[string]any{"crit": []string{"x-policy"}, "x-policy": "1"}), "system/Practitioner.read"), 401, "invalid_client", "crit"},
		{"typ not JWT", tokenForm(sign(t, a.priv, a.alg, a.kid, e.claims(idA), map[string]any{"typ": "at+jwt"}), "system/Practitioner.read"), 401, "invalid_client", "typ"},
		{"client_id differs from iss", withParam(tokenForm(valid(), "system/Practitioner.read"), "client_id", idB), 401, "invalid_client", "client_id parameter"},
		{"not a JWS", tokenForm("not.a.jws", "system/Practitioner.read"), 401, "invalid_client", "not a compact JWS"},
		{"wrong grant_type", withParam(tokenForm(valid(), "system/Practitioner.read"), "grant_type", "authorization_code"), 400, "unsupported_grant_type", ""},
		{"missing grant_type", withParam(tokenForm(valid(), "system/Practitioner.read"), "grant_type", ""), 400, "invalid_request", ""},
		{"wrong assertion type", withParam(tokenForm(valid(), "system/Practitioner.read"), "client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer"), 400, "invalid_request", ""},
		{"missing assertion", withParam(tokenForm("", "system/Practitioner.read"), "client_assertion", ""), 400, "invalid_request", ""},
		{"missing scope", tokenForm(valid(), ""), 400, "invalid_request", ""},
		{"repeated parameter", addParam(tokenForm(valid(), "system/Practitioner.read"), "scope", "system/*.read"), 400, "invalid_request", ""},
		{"scope not granted", tokenForm(valid(), "system/Organization.read"), 400, "invalid_scope", ""},
		{"malformed scope", tokenForm(valid(), "system/Practitioner.fly"), 400, "invalid_scope", ""},
		{"narrowed scope only", tokenForm(valid(), "system/Practitioner.rs?identifier=1234567893"), 400, "invalid_scope", ""},
		{"write scope only", tokenForm(valid(), "system/Practitioner.write"), 400, "invalid_scope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(e.logs.String())
			r := e.postToken(t, tt.form)
			if got, want := fmtStatus(r.status, r.Error), fmtStatus(tt.status, tt.code); got != want {
				t.Fatalf("got %s (%s), want %s", got, r.Description, want)
			}
			if tt.code == "invalid_client" && r.Description != "client authentication failed" {
				t.Errorf("invalid_client tells the client %q", r.Description)
			}
			if logged := e.logs.String()[before:]; tt.reason != "" && !strings.Contains(logged, tt.reason) {
				t.Errorf("log does not give the reason %q:\n%s", tt.reason, logged)
			}
			if r.AccessToken != "" {
				t.Error("an access token came with an error")
			}
		})
	}
	// No key material is ever logged.
	logs := e.logs.String()
	for _, secret := range privateParts(t, a.priv, b.priv) {
		if strings.Contains(logs, secret) {
			t.Fatal("private key material in the log")
		}
	}
}

// TestAssertionClockSkew holds the leeway on an assertion's time claims to ClockSkew (5 s): a
// client clock a few seconds off is tolerated, one further off is not.
func TestAssertionClockSkew(t *testing.T) {
	e := newEnv(t)
	k := ecKey(t, "a")
	id := e.addClient(t, k)
	now := e.clock.Now()
	off := func(d time.Duration) int64 { return now.Add(d).Unix() }
	tests := []struct {
		name   string
		claims map[string]any
		status int
	}{
		{"exp 3 s ago", map[string]any{"exp": off(-3 * time.Second)}, 200},
		{"exp 10 s ago", map[string]any{"exp": off(-10 * time.Second)}, 401},
		{"exp 25 s ago", map[string]any{"exp": off(-25 * time.Second)}, 401},
		{"iat 3 s ahead", map[string]any{"iat": off(3 * time.Second)}, 200},
		{"iat 10 s ahead", map[string]any{"iat": off(10 * time.Second)}, 401},
		{"nbf 3 s ahead", map[string]any{"nbf": off(3 * time.Second)}, 200},
		{"nbf 10 s ahead", map[string]any{"nbf": off(10 * time.Second)}, 401},
		{"exp 5 min and 3 s ahead", map[string]any{"exp": off(smart.MaxAssertionLifetime + 3*time.Second)}, 200},
		{"exp 5 min and 10 s ahead", map[string]any{"exp": off(smart.MaxAssertionLifetime + 10*time.Second)}, 401},
		{"issued 200 s ago, lifetime 400 s", map[string]any{"iat": off(-200 * time.Second), "exp": off(200 * time.Second)}, 401},
		{"issued 200 s ago, lifetime 5 min and 10 s", map[string]any{"iat": off(-200 * time.Second), "exp": off(110 * time.Second)}, 401},
		{"issued 200 s ago, lifetime 5 min", map[string]any{"iat": off(-200 * time.Second), "exp": off(100 * time.Second)}, 200},
		{"issued 200 s ago, lifetime 5 min and 3 s", map[string]any{"iat": off(-200 * time.Second), "exp": off(103 * time.Second)}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.claims(id)
			for name, v := range tt.claims {
				c[name] = v
			}
			r := e.postToken(t, tokenForm(sign(t, k.priv, k.alg, k.kid, c, nil), "system/*.read"))
			if r.status != tt.status {
				t.Errorf("status %d (%s), want %d", r.status, r.Error, tt.status)
			}
		})
	}
}

func TestContentTypeAndMethod(t *testing.T) {
	e := newEnv(t)
	res, err := http.Post(e.srv.URL+"/fhir/token", "application/json", strings.NewReader(`{"grant_type":"client_credentials"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("JSON body: %d, want 400", res.StatusCode)
	}
	// GET /fhir/token is no token request; here the stand-in /{type} route catches it, and
	// Protect must not wave it through as an open path.
	res, err = http.Get(e.srv.URL + "/fhir/token")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /fhir/token: %d, want 401", res.StatusCode)
	}
}

func flipSignature(jws string) string {
	i := strings.LastIndexByte(jws, '.')
	sig := []byte(jws[i+1:])
	if sig[5] == 'A' {
		sig[5] = 'B'
	} else {
		sig[5] = 'A'
	}
	return jws[:i+1] + string(sig)
}

func withParam(v url.Values, name, value string) url.Values {
	if value == "" {
		v.Del(name)
	} else {
		v.Set(name, value)
	}
	return v
}

func addParam(v url.Values, name, value string) url.Values {
	v.Add(name, value)
	return v
}

// privateParts returns the private exponents/scalars ("d") of keys, as they would appear in JSON.
func privateParts(t *testing.T, keys ...jwk.Key) []string {
	t.Helper()
	var out []string
	for _, k := range keys {
		b, _ := json.Marshal(k)
		var m map[string]any
		json.Unmarshal(b, &m)
		d, _ := m["d"].(string)
		if d == "" {
			t.Fatal("test key has no private part")
		}
		out = append(out, d)
	}
	return out
}

// TestTokenScope asks the token endpoint for scopes partly outside a client's registration: the
// response's scope lists exactly what was granted, the token allows exactly that, and a request
// left with nothing grantable is invalid_scope.
func TestTokenScope(t *testing.T) {
	e := newEnv(t)
	k := ecKey(t, "a")
	id := e.addClient(t, k, "system/Practitioner.read", "system/Location.s")
	tests := []struct {
		name      string
		requested string
		granted   string // "" for invalid_scope
		allows    []string
		refuses   []string
	}{
		{"as registered", "system/Practitioner.read system/Location.s", "system/Practitioner.rs system/Location.s",
			[]string{"/fhir/Practitioner/1", "/fhir/Location"}, []string{"/fhir/Location/1", "/fhir/Organization"}},
		{"one type outside", "system/Practitioner.read system/Organization.read", "system/Practitioner.read",
			[]string{"/fhir/Practitioner/1", "/fhir/Practitioner"}, []string{"/fhir/Organization/1", "/fhir/Location"}},
		{"more rights than registered", "system/Location.rs", "system/Location.s",
			[]string{"/fhir/Location"}, []string{"/fhir/Location/1"}},
		{"wildcard over a typed registration", "system/*.read", "system/Practitioner.read system/Location.s",
			[]string{"/fhir/Practitioner/1", "/fhir/Location"}, []string{"/fhir/Organization", "/fhir/Location/1"}},
		{"narrowed by a query, dropped", "system/Practitioner.rs?identifier=1234567893 system/Location.s", "system/Location.s",
			[]string{"/fhir/Location"}, []string{"/fhir/Practitioner/1"}},
		{"write rights dropped", "system/Practitioner.cruds", "system/Practitioner.rs",
			[]string{"/fhir/Practitioner/1"}, nil},
		{"non-resource and unserved scopes dropped", "openid fhirUser launch system/Patient.read system/Practitioner.r", "system/Practitioner.r",
			[]string{"/fhir/Practitioner/1"}, []string{"/fhir/Practitioner"}},
		{"nothing grantable", "system/Organization.read system/Patient.read", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.postToken(t, tokenForm(sign(t, k.priv, k.alg, k.kid, e.claims(id), nil), tt.requested))
			if tt.granted == "" {
				if r.status != http.StatusBadRequest || r.Error != "invalid_scope" || r.AccessToken != "" {
					t.Fatalf("%d %s, want 400 invalid_scope", r.status, r.Error)
				}
				return
			}
			if r.status != http.StatusOK || r.Scope != tt.granted {
				t.Fatalf("%d %s scope %q, want %q", r.status, r.Error, r.Scope, tt.granted)
			}
			for _, p := range tt.allows {
				if status, _, body := e.get(t, p, r.AccessToken); status != http.StatusOK {
					t.Errorf("GET %s: %d %v", p, status, body)
				}
			}
			for _, p := range tt.refuses {
				if status, _, _ := e.get(t, p, r.AccessToken); status != http.StatusForbidden {
					t.Errorf("GET %s: %d, want 403", p, status)
				}
			}
		})
	}
}

// A token error repeats at most a bounded part of what the client sent.
func TestTokenErrorsEchoBoundedValues(t *testing.T) {
	e := newEnv(t)
	k := rsaKey(t, "echo")
	id := e.addClient(t, k, "system/Practitioner.read")
	assertion := func() string { return sign(t, k.priv, k.alg, k.kid, e.claims(id), nil) }
	long := strings.Repeat("x", 20000) // the form stays under its 64 KiB bound
	repeated := tokenForm(assertion(), "system/Practitioner.read")
	repeated[long] = []string{"1", "2"}
	for name, form := range map[string]url.Values{
		"long scope":          tokenForm(assertion(), "system/"+long+".read"),
		"long repeated field": repeated,
	} {
		r := e.postToken(t, form)
		if r.status != http.StatusBadRequest || len(r.Description) > 300 || r.Description == "" {
			t.Errorf("%s: %d, error_description of %d bytes: %.120q", name, r.status, len(r.Description), r.Description)
		}
	}
}
