package smart

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"

	"providerdir/fileperm"
	"providerdir/store"
)

const (
	// SandboxClientID is the fixed id of the sandbox client, so a newcomer needs only its key.
	SandboxClientID = "sandbox"
	// SandboxKeyKind holds the sandbox client's private JWK. The sandbox credential is public by
	// design (docs/contracts/resolver-api.md: a shared, read-only sandbox usable without signup), so
	// keeping it in the store is what lets every replica write the same key file; no other private
	// key is stored.
	SandboxKeyKind = "smart_sandbox_key"
	sandboxScope   = "system/*.read"
)

// ensureSandbox creates the sandbox client on the first start (idempotent; replicas racing
// through it end with one key and one client, because both records are created with a
// compare-and-swap create and a loser reads the winner's) and writes its private key file.
func ensureSandbox(ctx context.Context, st store.Store, keyFile string, log *slog.Logger) error {
	priv, err := sandboxKey(ctx, st)
	if err != nil {
		return err
	}
	created := false
	_, err = store.Update(ctx, st, ClientKind, SandboxClientID, func(old store.Record) (store.Record, error) {
		if created = old.Version == 0; !created {
			return old, store.SkipWrite
		}
		jwks, err := publicJWKS(priv)
		if err != nil {
			return old, err
		}
		c := Client{ID: SandboxClientID, Name: "Sandbox (read-only, 200 providers)", JWKS: jwks,
			Scopes: []string{sandboxScope}, Enabled: true, Sandbox: true, CreatedAt: time.Now().UTC()}
		old.Body, err = json.Marshal(c)
		return old, err
	}, store.CreateIfAbsent())
	if err != nil {
		return fmt.Errorf("sandbox client: %w", err)
	}
	if created {
		log.Info("sandbox client created", slog.String("client_id", SandboxClientID))
	}
	if keyFile == "" {
		return nil
	}
	if err := writeKeyFile(keyFile, priv); err != nil {
		return err
	}
	log.Info("sandbox client key file ready", slog.String("client_id", SandboxClientID), slog.String("file", keyFile))
	return nil
}

// sandboxKey reads the sandbox private key, generating it (RSA 2048, for RS384) the first time.
func sandboxKey(ctx context.Context, st store.Store) (jwk.Key, error) {
	rec, err := store.Update(ctx, st, SandboxKeyKind, SandboxClientID, func(old store.Record) (store.Record, error) {
		if old.Version != 0 {
			return old, store.SkipWrite
		}
		body, err := newSandboxKey()
		old.Body = body
		return old, err
	}, store.CreateIfAbsent())
	if err != nil {
		return nil, fmt.Errorf("sandbox key: %w", err)
	}
	return jwk.ParseKey(rec.Body)
}

// publicJWKS is the JWK set of priv's public half.
func publicJWKS(priv jwk.Key) ([]byte, error) {
	pub, err := priv.PublicKey()
	if err != nil {
		return nil, err
	}
	set := jwk.NewSet()
	if err := set.AddKey(pub); err != nil {
		return nil, err
	}
	return json.Marshal(set)
}

func newSandboxKey() ([]byte, error) {
	raw, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	k, err := jwk.Import(raw)
	if err != nil {
		return nil, err
	}
	if err := jwk.AssignKeyID(k); err != nil {
		return nil, err
	}
	for name, v := range map[string]any{jwk.AlgorithmKey: jwa.RS384(), jwk.KeyUsageKey: jwk.ForSignature} {
		if err := k.Set(name, v); err != nil {
			return nil, err
		}
	}
	return json.Marshal(k)
}

// writeKeyFile writes the private JWK readable by its owner only, replacing the file in one
// rename so a reader never sees half a key. An unchanged file is left alone. A file that other
// users may read is refused rather than quietly fixed: whoever could read it may have copied it,
// and the operator should know.
func writeKeyFile(path string, k jwk.Key) error {
	if err := fileperm.CheckPrivate(path); err != nil {
		return err
	}
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".sandbox-key-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
