package markdown

import (
	"encoding/xml"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"providerdir/docs"
)

func TestRender(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"heading and paragraph", "# Title\n\nOne\nline <b>.\n", "<h1 id=\"title\">Title</h1>\n<p>One line &lt;b&gt;.</p>\n"},
		{"list with continuation", "- **a**: `x`\n  more\n- b\n", "<ul>\n<li><strong>a</strong>: <code>x</code> more</li>\n<li>b</li>\n</ul>\n"},
		{"numbered", "1. one\n2. two\n", "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"},
		{"table", "| a | b |\n|---|:-:|\n| `x|y` | **z** |\n| 1 |\n", "<table>\n<thead><tr><th scope=\"col\">a</th><th scope=\"col\">b</th></tr></thead>\n<tbody>\n<tr><td><code>x|y</code></td><td><strong>z</strong></td></tr>\n<tr><td>1</td><td></td></tr>\n</tbody>\n</table>\n"},
		{"unpaired markers are text", "a ` b ** c", "<p>a ` b ** c</p>\n"},
		{"strong holding code", "**a `**` b**", "<p><strong>a <code>**</code> b</strong></p>\n"},
		{"repeated headings", "## A\n## A\n", "<h2 id=\"a\">A</h2>\n<h2 id=\"a-2\">A</h2>\n"},
		{"a pipe line without delimiter is a paragraph", "| a |\ntext", "<p>| a | text</p>\n"},
		{"not a heading", "#hash", "<p>#hash</p>\n"},
	} {
		if got := string(Render(tt.in).Body); got != tt.want {
			t.Errorf("%s: Render(%q) =\n%s\nwant\n%s", tt.name, tt.in, got, tt.want)
		}
	}
}

// The published documents render with their title and without a Markdown marker left over.
func TestPublishedDocuments(t *testing.T) {
	err := fs.WalkDir(docs.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := fs.ReadFile(docs.Files, path)
		if err != nil {
			return err
		}
		doc := Render(string(src))
		if doc.Title == "" {
			t.Errorf("%s: no title", path)
		}
		text := textOf(t, string(doc.Body))
		for _, marker := range []string{"**", "`", "|---", "\n#", "\n- "} {
			if strings.Contains(text, marker) {
				t.Errorf("%s: %q left in the text", path, marker)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// allowed are the elements the renderer writes.
var allowed = []string{"h1", "h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "code", "strong"}

// textOf checks that body is well-formed markup of the allowed elements only, with no attribute
// but a heading's id and a header cell's scope, and returns its text.
func textOf(t *testing.T, body string) string {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader("<root>" + body + "</root>"))
	dec.Strict = true
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return text.String()
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, body)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "root" {
				continue
			}
			if !slices.Contains(allowed, tok.Name.Local) {
				t.Fatalf("element %s in\n%s", tok.Name.Local, body)
			}
			for _, a := range tok.Attr {
				if !(a.Name.Local == "id" && tok.Name.Local[0] == 'h' && tok.Name.Local != "h") && !(a.Name.Local == "scope" && tok.Name.Local == "th") {
					t.Fatalf("attribute %s on %s in\n%s", a.Name.Local, tok.Name.Local, body)
				}
			}
		case xml.CharData:
			text.Write(tok)
		}
	}
}

// FuzzRender: whatever the source, the body is well-formed markup of the renderer's elements
// with no attribute of the source's making, and its text holds exactly the source's letters, in
// order (markers are punctuation, and digits may be a numbered item's marker).
func FuzzRender(f *testing.F) {
	for _, s := range []string{"# T\n\n- **a** `b`\n  c\n\n| x | y |\n|---|---|\n| 1 | 2 |\n", "<script>", "**`**`", "1. a\n2. b", "|a|\n|-|\n|`\\|`|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8Valid(src) {
			return
		}
		text := textOf(t, string(Render(src).Body))
		if letters(src) != letters(text) {
			t.Fatalf("letters lost: %q -> %q", src, text)
		}
	})
}

// utf8Valid reports whether s is text XML can carry, which the check of the output needs.
func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s && xmlChars(s) }

// xmlChars reports whether every rune is one XML 1.0 allows in text.
func xmlChars(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return false
		}
	}
	return true
}

// letters are the ASCII letters of s, in order.
func letters(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
