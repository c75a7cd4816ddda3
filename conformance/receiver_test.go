package conformance

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"
)

func TestSignedWith(t *testing.T) {
	body := []byte(`{"event":"webhook.test"}`)
	mac := func(secret string) string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(body)
		return hex.EncodeToString(m.Sum(nil))
	}
	now := time.Now().Unix()
	for _, tt := range []struct {
		name, header string
		ok           bool
	}{
		{"the secret's HMAC", fmt.Sprintf("t=%d,v1=%s", now, mac("whsec_a")), true},
		{"the secret's HMAC second, during a rotation's overlap", fmt.Sprintf("t=%d,v1=%s,v1=%s", now, mac("whsec_old"), mac("whsec_a")), true},
		{"another secret's HMAC", fmt.Sprintf("t=%d,v1=%s", now, mac("whsec_b")), false},
		{"no timestamp", "v1=" + mac("whsec_a"), false},
		{"no v1", fmt.Sprintf("t=%d", now), false},
		{"a timestamp an hour old", fmt.Sprintf("t=%d,v1=%s", now-3600, mac("whsec_a")), false},
		{"a timestamp that is no number", "t=soon,v1=" + mac("whsec_a"), false},
		{"an empty header", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := delivery{signature: tt.header, body: body}.signedWith("whsec_a")
			if (err == nil) != tt.ok {
				t.Errorf("signedWith(%q) = %v, want ok %v", tt.header, err, tt.ok)
			}
		})
	}
}
