package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

// The header is exactly t=<unix>,v1=<hex HMAC-SHA256 of the raw body>, computed here
// independently of the package, with a second v1 for a second secret.
func TestSignFormat(t *testing.T) {
	body := []byte(`{"event":"source.refreshed","dataset_id":"nppes"}`)
	at := time.Unix(1767225600, 0)
	mac := func(secret string) string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(body)
		return hex.EncodeToString(m.Sum(nil))
	}
	if got, want := Sign(at, body, "whsec_a"), "t=1767225600,v1="+mac("whsec_a"); got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	if got, want := Sign(at, body, "whsec_a", "whsec_b"), "t=1767225600,v1="+mac("whsec_a")+",v1="+mac("whsec_b"); got != want {
		t.Errorf("Sign with two secrets = %s, want %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"event":"ping"}`)
	now := time.Unix(1767225600, 0)
	good := Sign(now, body, "s1")
	rotating := Sign(now, body, "s2", "s1")
	sig := good[strings.Index(good, "v1="):]
	for _, c := range []struct {
		name, header, secret string
		body                 []byte
		at                   time.Time
		tolerance            time.Duration
		want                 error
	}{
		{"valid", good, "s1", body, now, 5 * time.Minute, nil},
		{"old secret during rotation", rotating, "s1", body, now, 5 * time.Minute, nil},
		{"new secret during rotation", rotating, "s2", body, now, 5 * time.Minute, nil},
		{"wrong secret", good, "s2", body, now, 0, ErrSignatureMismatch},
		{"changed body", good, "s1", []byte(`{"event":"pong"}`), now, 0, ErrSignatureMismatch},
		{"too old", good, "s1", body, now.Add(6 * time.Minute), 5 * time.Minute, ErrSignatureTooOld},
		{"from the future", good, "s1", body, now.Add(-6 * time.Minute), 5 * time.Minute, ErrSignatureTooOld},
		{"no tolerance check", good, "s1", body, now.Add(time.Hour), 0, nil},
		{"spaces after commas", strings.ReplaceAll(rotating, ",", ", "), "s1", body, now, 0, nil},
		{"unknown scheme ignored", good + ",v0=abc", "s1", body, now, 0, nil},
		{"empty", "", "s1", body, now, 0, ErrSignatureFormat},
		{"no timestamp", sig, "s1", body, now, 0, ErrSignatureFormat},
		{"no v1", "t=1767225600", "s1", body, now, 0, ErrSignatureFormat},
		{"two timestamps", "t=1,t=2," + sig, "s1", body, now, 0, ErrSignatureFormat},
		{"short v1", "t=1,v1=abcd", "s1", body, now, 0, ErrSignatureFormat},
		{"non-hex v1", "t=1,v1=" + strings.Repeat("z", 64), "s1", body, now, 0, ErrSignatureFormat},
		{"negative time", "t=-1," + sig, "s1", body, now, 0, ErrSignatureFormat},
		{"bare element", "t=1,v1", "s1", body, now, 0, ErrSignatureFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := Verify(c.header, c.body, c.secret, c.at, c.tolerance); !errors.Is(err, c.want) {
				t.Errorf("Verify = %v, want %v", err, c.want)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if a == b || !strings.HasPrefix(a, "whsec_") || len(a) != len("whsec_")+64 {
		t.Errorf("secrets %q, %q", a, b)
	}
}

// A signature header of any shape verifies only when one of its v1 values is the HMAC of the
// body under the secret, which the header can hold only by having been signed with it; a
// header that parses holds a timestamp and signatures of the HMAC's length.
func FuzzVerify(f *testing.F) {
	body := []byte(`{"event":"provider.changed"}`)
	secret := "whsec_0123"
	at := time.Unix(1749388800, 0)
	f.Add(Sign(at, body, secret), body, secret)
	f.Add(Sign(at, body, "whsec_other", secret), body, secret)
	f.Add(Sign(at, body, secret)+",v0=zz", body, secret)
	f.Add("t=1749388800,v1="+strings.Repeat("ab", 32), body, secret)
	f.Add("t=-1,v1=", []byte{}, "")
	f.Add(" t=1 , v1=00 ", []byte("x"), "s")
	f.Add("t=1,t=2,v1="+strings.Repeat("0", 64), []byte("x"), "s")
	f.Fuzz(func(t *testing.T, header string, body []byte, secret string) {
		ts, sigs, err := parseSignature(header)
		if err == nil {
			if ts < 0 || len(sigs) == 0 {
				t.Fatalf("parsed %q: t=%d, %d signatures", header, ts, len(sigs))
			}
			for _, s := range sigs {
				if len(s) != sha256.Size {
					t.Fatalf("parsed %q: a signature of %d bytes", header, len(s))
				}
			}
		} else if !errors.Is(err, ErrSignatureFormat) {
			t.Fatalf("parse %q: %v", header, err)
		}
		err = Verify(header, body, secret, time.Unix(ts, 0), time.Minute)
		if err != nil {
			return
		}
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(body)
		want := m.Sum(nil)
		for _, s := range sigs {
			if hmac.Equal(s, want) {
				return
			}
		}
		t.Fatalf("Verify accepted %q for a body it does not sign", header)
	})
}
