// Package requestid owns the per-request correlation id: its format, how a new one is made, and
// how it travels in a context. One id ties a client's error report to the server's log lines, so
// every error envelope quotes it and every request-scoped log line carries it.
package requestid

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// Header is the HTTP header that carries the id both ways.
const Header = "X-Request-ID"

// MaxLen bounds an accepted incoming id, so a client cannot bloat every log line.
const MaxLen = 128

type ctxKey struct{}

// With returns a context carrying id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// From returns the id carried by ctx, or "" outside a request.
func From(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}

// Valid reports whether an incoming id may be reused as is: 1 to MaxLen bytes of letters, digits,
// '-', '_', '.' and ':'. That covers UUIDs, ULIDs and the ids common proxies generate, and keeps
// anything that could forge a log field or a header out.
func Valid(id string) bool {
	if id == "" || len(id) > MaxLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// New returns a fresh random id in the UUID version 4 layout, which log tools recognise.
func New() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}
