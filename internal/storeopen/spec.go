package storeopen

import (
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

// Spec is a parsed --store value.
type Spec struct {
	// Backend is BackendEmbedded or BackendMongo.
	Backend string
	// Dir is the embedded store's directory.
	Dir string
	// URI is the MongoDB connection string, as given.
	URI string
}

// String returns the spec as it would be written on the command line, with any MongoDB password
// masked so that it can be logged.
func (s Spec) String() string {
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
func (s Spec) LocalDir() string {
	if s.Backend != BackendEmbedded {
		return ""
	}
	return filepath.Dir(filepath.Clean(s.Dir))
}

// Parse reads a --store value: "embedded:DIR", or a MongoDB connection string starting with
// mongodb:// or mongodb+srv://. The database named in its path is where the service keeps its
// collections.
func Parse(v string) (Spec, error) {
	switch {
	case strings.HasPrefix(v, BackendEmbedded+":"):
		dir := strings.TrimPrefix(v, BackendEmbedded+":")
		if strings.TrimSpace(dir) == "" {
			return Spec{}, fmt.Errorf("%q names no directory (embedded:DIR)", v)
		}
		return Spec{Backend: BackendEmbedded, Dir: dir}, nil
	case strings.HasPrefix(v, "mongodb://"), strings.HasPrefix(v, "mongodb+srv://"):
		u, err := url.Parse(v)
		if err != nil || u.Host == "" {
			return Spec{}, fmt.Errorf("%q is not a MongoDB connection string with a host", redact(v))
		}
		return Spec{Backend: BackendMongo, URI: v}, nil
	default:
		return Spec{}, fmt.Errorf("%q is neither embedded:DIR nor a mongodb:// or mongodb+srv:// URI", redact(v))
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
