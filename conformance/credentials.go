package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/lestrrat-go/jwx/v3/jwk"
)

// Credentials are what a deployment hands a conformance run: where it serves and the secrets of
// each surface. `providerctl demo --json FILE` writes the demo deployment's; for any other
// deployment the operator writes the file or passes each value as a flag.
type Credentials struct {
	// BaseURL is the service host, without a trailing slash: /fhir, /v1 and /resolver/v1 are
	// under it.
	BaseURL string `json:"base_url"`
	// SMARTClientID is a registered SMART Backend Services client.
	SMARTClientID string `json:"smart_client_id,omitempty"`
	// SMARTKeyFile names a file holding the client's private JWK (one key, or a set of one).
	SMARTKeyFile string `json:"smart_private_key_file,omitempty"`
	// SMARTKey is the client's private JWK inline; it wins over SMARTKeyFile.
	SMARTKey json.RawMessage `json:"smart_private_jwk,omitempty"`
	// SupplyKey is a bearer key of the supply API (/v1).
	SupplyKey string `json:"supply_api_key,omitempty"`
	// ResolverKey is a key of the resolver API (/resolver/v1), such as the sandbox key.
	ResolverKey string `json:"resolver_key,omitempty"`
}

// ReadCredentials reads a credentials file.
func ReadCredentials(file string) (Credentials, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Credentials{}, err
	}
	var c Credentials
	if err := json.Unmarshal(b, &c); err != nil {
		return Credentials{}, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// WriteCredentials writes c to file readable by its owner only: the file holds secrets.
func WriteCredentials(file string, c Credentials) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	// A file that existed keeps its mode through OpenFile: narrow it before writing a secret.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// PrivateKey returns the SMART client's private JWK: the inline one, else the file's. A set must
// hold exactly one key, and it must be private.
func (c Credentials) PrivateKey() (jwk.Key, error) {
	raw := []byte(c.SMARTKey)
	if len(raw) == 0 {
		if c.SMARTKeyFile == "" {
			return nil, errors.New("no SMART private key (smart_private_jwk or smart_private_key_file)")
		}
		b, err := os.ReadFile(c.SMARTKeyFile)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	set, err := jwk.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("SMART private key: %w", err)
	}
	key, ok := set.Key(0)
	if priv, _ := jwk.IsPrivateKey(key); !ok || set.Len() != 1 || !priv {
		return nil, errors.New("SMART private key: want exactly one private JWK")
	}
	return key, nil
}
