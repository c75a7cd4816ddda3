package config

import (
	"flag"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Store backends.
const (
	BackendEmbedded = "embedded"
	BackendMongo    = "mongodb"
)

// StoreSpec is a parsed --store value.
type StoreSpec struct {
	// Backend is BackendEmbedded or BackendMongo.
	Backend string
	// Dir is the embedded store's directory.
	Dir string
	// URI is the MongoDB connection string, as given.
	URI string
}

// String returns the spec as it would be written on the command line, with any MongoDB password
// masked so that it can be logged.
func (s StoreSpec) String() string {
	if s.Backend == BackendEmbedded {
		return BackendEmbedded + ":" + s.Dir
	}
	u, err := url.Parse(s.URI)
	if err != nil {
		return "mongodb://(unparsable)"
	}
	return u.Redacted()
}

// LocalDir is the directory beside an embedded store where the service keeps the files a person
// on the machine uses (the SMART sandbox client's private key, the demo's pilot key): data/ for
// embedded:data/db. It is "" for MongoDB, which has no local directory.
func (s StoreSpec) LocalDir() string {
	if s.Backend != BackendEmbedded {
		return ""
	}
	return filepath.Dir(filepath.Clean(s.Dir))
}

// SandboxKeyFile is the file name of the SMART sandbox client's private key in LocalDir.
const SandboxKeyFile = "sandbox-client.jwk"

// ParseStore reads a --store value: "embedded:DIR", or a MongoDB connection string starting with
// mongodb:// or mongodb+srv://. The database named in its path is where the service keeps its
// collections.
func ParseStore(v string) (StoreSpec, error) {
	switch {
	case strings.HasPrefix(v, BackendEmbedded+":"):
		dir := strings.TrimPrefix(v, BackendEmbedded+":")
		if strings.TrimSpace(dir) == "" {
			return StoreSpec{}, fmt.Errorf("%q names no directory (embedded:DIR)", v)
		}
		return StoreSpec{Backend: BackendEmbedded, Dir: dir}, nil
	case strings.HasPrefix(v, "mongodb://"), strings.HasPrefix(v, "mongodb+srv://"):
		u, err := url.Parse(v)
		if err != nil || u.Host == "" {
			return StoreSpec{}, fmt.Errorf("%q is not a MongoDB connection string with a host", redact(v))
		}
		return StoreSpec{Backend: BackendMongo, URI: v}, nil
	default:
		return StoreSpec{}, fmt.Errorf("%q is neither embedded:DIR nor a mongodb:// or mongodb+srv:// URI", redact(v))
	}
}

// redact keeps a password out of an error message when the value parses far enough to find it.
func redact(v string) string {
	if u, err := url.Parse(v); err == nil && u.User != nil {
		return u.Redacted()
	}
	if i := strings.Index(v, "@"); i >= 0 {
		return "…" + v[i:]
	}
	return v
}

// StoreFlag defines --store on fs for a command other than providerd (providerctl's subcommands)
// with the same default and PROVIDERD_STORE fallback. Call the returned function after fs.Parse.
func StoreFlag(fs *flag.FlagSet, getenv func(string) string) func() (StoreSpec, error) {
	v := fs.String("store", DefaultStore, "store backend: embedded:DIR, mongodb://... or mongodb+srv://... (env "+EnvName("store")+")")
	return func() (StoreSpec, error) {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "store" })
		val, from := resolve("store", *v, set, getenv)
		spec, err := ParseStore(val)
		if err != nil {
			return StoreSpec{}, fmt.Errorf("invalid %s: %w", from, err)
		}
		return spec, nil
	}
}
