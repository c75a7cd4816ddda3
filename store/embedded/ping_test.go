package embedded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"providerdir/store"
)

func TestPing(t *testing.T) {
	tests := []struct {
		name    string
		disturb func(t *testing.T, s *Store)
		wantErr error // nil with ok false: any error
		ok      bool
	}{
		{"open store", func(*testing.T, *Store) {}, nil, true},
		{"directory deleted", func(t *testing.T, s *Store) {
			if err := os.RemoveAll(s.dir); err != nil {
				t.Fatal(err)
			}
		}, nil, false},
		{"directory replaced", func(t *testing.T, s *Store) {
			if err := os.RemoveAll(s.dir); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(s.dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(s.dir, lockFile), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, nil, false},
		{"closed", func(t *testing.T, s *Store) { _ = s.Close() }, store.ErrClosed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			tt.disturb(t, s)
			err := s.Ping(context.Background())
			switch {
			case tt.ok && err != nil:
				t.Fatalf("Ping = %v, want nil", err)
			case !tt.ok && err == nil:
				t.Fatal("Ping = nil, want an error")
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("Ping = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
