package resolverclient

import (
	"errors"
	"net/url"
	"path"
	"strings"
	"testing"
)

// FuzzRequestPath holds requestPath to a model of what it guards against, a server or proxy
// that decodes a path, reads a backslash as a slash and removes dot segments: a segment is
// accepted exactly when that reading leaves it the one last segment, and then the path sent
// decodes to it.
func FuzzRequestPath(f *testing.F) {
	for _, s := range []string{"1234567893", "", ".", "..", "../webhooks", `..\x`, "a/b", "x y?#%", "%2e%2e", "...", ".a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := requestPath("npi", s)
		read := "/npi/" + strings.ReplaceAll(s, `\`, "/")
		safe := path.Clean(read) == read && path.Base(read) == s
		if (err == nil) != safe {
			t.Fatalf("requestPath(npi, %q) = %q, %v; the decoded path %q read as %q", s, p, err, read, path.Clean(read))
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("requestPath(npi, %q): %v, not ErrInvalidArgument", s, err)
			}
			return
		}
		if strings.Count(p, "/") != 2 {
			t.Fatalf("requestPath(npi, %q) = %q: not two segments", s, p)
		}
		if decoded, err := url.PathUnescape(p); err != nil || decoded != "/npi/"+s {
			t.Fatalf("requestPath(npi, %q) = %q decodes to %q (%v)", s, p, decoded, err)
		}
	})
}
