// Package providerdir holds, at the repository root, the test that keeps the rules of
// docs/ARCHITECTURE.md true of the import graph.
package providerdir

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "providerdir"

// A rule is one row of the rules table of docs/ARCHITECTURE.md.
type rule struct {
	name      string
	packages  []string // patterns; "!x" leaves x out
	forbidden []string // patterns; nil with oneAnother or docComment
	except    []string // patterns, or "a -> b" for one import
	// oneAnother forbids each package of the row the others; docComment asks each for a doc
	// comment instead of checking imports; roomCycle forbids an import between top-level folders
	// that the folders' imports lead back from.
	oneAnother, docComment, roomCycle bool
}

// pkg is a package of the module as go list describes it, its path relative to the module.
type pkg struct {
	path    string
	doc     string
	dir     string
	files   []string // the non-test Go files, names in dir
	imports []string // the module's packages only
}

// TestArchitecture checks every rule of docs/ARCHITECTURE.md on every package of the module.
func TestArchitecture(t *testing.T) {
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := parseRules(doc)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := listPackages(t)
	for _, v := range checkRules(rules, pkgs) {
		t.Error(v)
	}
}

// checkRules returns one line per broken rule: the package, the import and the rule. A rule
// whose patterns match no package is broken too, so a renamed package cannot empty a rule.
func checkRules(rules []rule, pkgs map[string]pkg) []string {
	var out []string
	paths := make([]string, 0, len(pkgs))
	for p := range pkgs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, r := range rules {
		for _, pat := range slices.Concat(r.packages, r.forbidden) {
			pat = strings.TrimPrefix(pat, "!")
			if !slices.ContainsFunc(paths, func(p string) bool { return match(pat, p) }) {
				out = append(out, fmt.Sprintf("pattern %s matches no package: rule '%s'", pat, r.name))
			}
		}
		subjects := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return !r.holds(p) })
		if r.roomCycle {
			out = append(out, r.roomCycles(subjects, pkgs)...)
			continue
		}
		for _, p := range subjects {
			if r.docComment {
				if strings.TrimSpace(pkgs[p].doc) == "" {
					out = append(out, fmt.Sprintf("%s has no doc comment: rule '%s'", p, r.name))
				}
				continue
			}
			forbidden := r.forbidden
			if r.oneAnother {
				forbidden = slices.DeleteFunc(slices.Clone(subjects), func(q string) bool { return q == p })
			}
			out = append(out, r.walk(p, forbidden, pkgs)...)
		}
	}
	return out
}

// holds reports whether the rule applies to the package at path.
func (r rule) holds(path string) bool {
	in := false
	for _, pat := range r.packages {
		if neg, ok := strings.CutPrefix(pat, "!"); ok {
			if match(neg, path) {
				return false
			}
		} else if match(pat, path) {
			in = true
		}
	}
	return in
}

// walk follows the imports of from, directly and through the packages it imports, and
// returns each forbidden one reached, with the chain that reaches it. An excepted import is
// neither reported nor followed.
func (r rule) walk(from string, forbidden []string, pkgs map[string]pkg) []string {
	var out []string
	seen := map[string]bool{from: true}
	var visit func(at string, chain []string)
	visit = func(at string, chain []string) {
		for _, imp := range pkgs[at].imports {
			if seen[imp] || r.excepts(at, imp) {
				continue
			}
			seen[imp] = true
			next := append(slices.Clip(chain), imp)
			if slices.ContainsFunc(forbidden, func(pat string) bool { return match(pat, imp) }) {
				via := ""
				if len(next) > 2 {
					via = " (" + strings.Join(next, " -> ") + ")"
				}
				out = append(out, fmt.Sprintf("%s imports %s%s: rule '%s'", from, imp, via, r.name))
				continue
			}
			visit(imp, next)
		}
	}
	visit(from, []string{from})
	return out
}

// room is the top-level folder of a package's path.
func room(path string) string {
	first, _, _ := strings.Cut(path, "/")
	return first
}

// roomCycles returns one line per import of a subject into another top-level folder from which
// the folders' imports, those of the subjects the rule does not except, lead back: the import
// and the folders of the way back.
func (r rule) roomCycles(subjects []string, pkgs map[string]pkg) []string {
	type edge struct{ from, to string }
	imports := map[edge][]string{} // room to room: "a -> b" of each package import
	next := map[string][]string{}
	for _, p := range subjects {
		for _, imp := range pkgs[p].imports {
			e := edge{room(p), room(imp)}
			if e.from == e.to || !r.holds(imp) || r.excepts(p, imp) {
				continue
			}
			if imports[e] == nil {
				next[e.from] = append(next[e.from], e.to)
			}
			imports[e] = append(imports[e], p+" imports "+imp)
		}
	}
	// back returns the rooms of a shortest way from a to b, a first, or nil when none.
	back := func(a, b string) []string {
		from := map[string]string{a: ""}
		queue := []string{a}
		for len(queue) > 0 {
			at := queue[0]
			queue = queue[1:]
			for _, n := range next[at] {
				if _, seen := from[n]; seen {
					continue
				}
				from[n] = at
				if n == b {
					way := []string{n}
					for at := at; at != ""; at = from[at] {
						way = append(way, at)
					}
					slices.Reverse(way)
					return way
				}
				queue = append(queue, n)
			}
		}
		return nil
	}
	var out []string
	for _, e := range slices.SortedFunc(maps.Keys(imports), func(x, y edge) int {
		return cmp.Or(strings.Compare(x.from, y.from), strings.Compare(x.to, y.to))
	}) {
		if way := back(e.to, e.from); way != nil {
			first := slices.Min(imports[e])
			out = append(out, fmt.Sprintf("%s, and %s leads back (%s): rule '%s'", first, e.to, strings.Join(way, " -> "), r.name))
		}
	}
	return out
}

// excepts reports whether the import of imp by at is one the rule allows.
func (r rule) excepts(at, imp string) bool {
	for _, e := range r.except {
		if a, b, ok := strings.Cut(e, " -> "); ok {
			if match(a, at) && match(b, imp) {
				return true
			}
		} else if match(e, imp) {
			return true
		}
	}
	return false
}

// match reports whether path matches pattern: "*" every package, "x/..." x and everything
// under it, anything else that one path.
func match(pattern, path string) bool {
	if pattern == "*" {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return pattern == path
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// parseRules reads the table of the "## Rules" section: rule, packages, may not import,
// except. A cell's patterns are its code spans.
func parseRules(doc []byte) ([]rule, error) {
	_, section, ok := bytes.Cut(doc, []byte("\n## Rules\n"))
	if !ok {
		return nil, errors.New("docs/ARCHITECTURE.md has no Rules section")
	}
	if next := bytes.Index(section, []byte("\n## ")); next >= 0 {
		section = section[:next]
	}
	var rules []rule
	header := false
	for _, line := range strings.Split(string(section), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case !header:
			if !slices.Equal(cells, []string{"rule", "packages", "may not import", "except"}) {
				return nil, fmt.Errorf("rules table header %q, want rule | packages | may not import | except", cells)
			}
			header = true
			continue
		case strings.HasPrefix(cells[0], "---"):
			continue
		case len(cells) != 4:
			return nil, fmt.Errorf("rules table row %q has %d cells, want 4", line, len(cells))
		}
		r := rule{name: cells[0], packages: spans(cells[1]), except: spans(cells[3])}
		switch cells[2] {
		case "one another":
			r.oneAnother = true
		case "a missing doc comment":
			r.docComment = true
		case "a folder that imports it back":
			r.roomCycle = true
		default:
			r.forbidden = spans(cells[2])
		}
		if len(r.packages) == 0 || !r.oneAnother && !r.docComment && !r.roomCycle && len(r.forbidden) == 0 {
			return nil, fmt.Errorf("rules table row %q names no packages or no import", line)
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return nil, errors.New("docs/ARCHITECTURE.md's Rules section has no table")
	}
	return rules, nil
}

func spans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// listPackages runs go list over the module: its packages, their doc comments, files and
// imports within the module (test files aside). Folders of tests alone are not packages here.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,Doc,GoFiles,Imports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir, Doc string
			GoFiles, Imports     []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		path, ok := relative(p.ImportPath)
		if !ok || len(p.GoFiles) == 0 { // a folder of tests only, as the root is
			continue
		}
		q := pkg{path: path, doc: p.Doc, dir: p.Dir, files: p.GoFiles}
		for _, imp := range p.Imports {
			if rel, ok := relative(imp); ok {
				q.imports = append(q.imports, rel)
			}
		}
		pkgs[path] = q
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no package")
	}
	return pkgs
}

// relative returns the path of a module package below the module.
func relative(importPath string) (string, bool) {
	rel, ok := strings.CutPrefix(importPath, module+"/")
	return rel, ok
}

// TestCheckRules holds the checker to a small graph: a direct and an indirect import reported
// with their chain, an excepted import neither reported nor followed, one another, doc comments.
func TestCheckRules(t *testing.T) {
	pkgs := map[string]pkg{
		"ui":     {path: "ui", doc: "Package ui.", imports: []string{"shape", "geo"}},
		"api":    {path: "api", doc: "Package api.", imports: []string{"ui"}},
		"shape":  {path: "shape", doc: "Package shape.", imports: []string{"reader"}},
		"geo":    {path: "geo", doc: "Package geo.", imports: []string{"reader"}},
		"reader": {path: "reader"},
	}
	tests := []struct {
		name string
		rule rule
		want []string
	}{
		{"indirect", rule{name: "r", packages: []string{"ui"}, forbidden: []string{"reader"}, except: []string{"geo"}},
			[]string{"ui imports reader (ui -> shape -> reader): rule 'r'"}},
		{"direct", rule{name: "r", packages: []string{"shape", "geo"}, forbidden: []string{"reader"}, except: []string{"geo -> reader"}},
			[]string{"shape imports reader: rule 'r'"}},
		{"one another", rule{name: "r", packages: []string{"ui", "api"}, oneAnother: true},
			[]string{"api imports ui: rule 'r'"}},
		{"doc comment", rule{name: "r", packages: []string{"*", "!ui"}, docComment: true},
			[]string{"reader has no doc comment: rule 'r'"}},
		{"unmatched pattern", rule{name: "r", packages: []string{"web"}, forbidden: []string{"reader"}},
			[]string{"pattern web matches no package: rule 'r'"}},
	}
	for _, tt := range tests {
		if got := checkRules([]rule{tt.rule}, pkgs); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestRoomCycles holds the folder check to small graphs: a loop of two folders reported from
// both sides, one of three with its way back, an excepted import that breaks a loop, a
// stack of folders with none.
func TestRoomCycles(t *testing.T) {
	graph := func(edges ...string) map[string]pkg {
		pkgs := map[string]pkg{}
		for _, e := range edges {
			a, b, _ := strings.Cut(e, " -> ")
			pa := pkgs[a]
			pa.path = a
			pa.imports = append(pa.imports, b)
			pkgs[a] = pa
			if _, ok := pkgs[b]; !ok {
				pkgs[b] = pkg{path: b}
			}
		}
		return pkgs
	}
	all := rule{name: "r", packages: []string{"*"}, roomCycle: true}
	tests := []struct {
		name string
		rule rule
		pkgs map[string]pkg
		want []string
	}{
		{"two folders", all, graph("store/embedded -> internal/fileperm", "internal/metrics -> store", "rest -> internal/metrics"),
			[]string{
				"store/embedded imports internal/fileperm, and internal leads back (internal -> store): rule 'r'",
				"internal/metrics imports store, and store leads back (store -> internal): rule 'r'",
			}},
		{"three folders", all, graph("a/x -> b", "b -> c/y", "c/y -> a/z", "d -> a/x"),
			[]string{
				"a/x imports b, and b leads back (b -> c -> a): rule 'r'",
				"b imports c/y, and c leads back (c -> a -> b): rule 'r'",
				"c/y imports a/z, and a leads back (a -> b -> c): rule 'r'",
			}},
		{"excepted", rule{name: "r", packages: []string{"*"}, roomCycle: true, except: []string{"store/embedded -> internal/fileperm"}},
			graph("store/embedded -> internal/fileperm", "internal/metrics -> store"), nil},
		{"left out", rule{name: "r", packages: []string{"*", "!testing/..."}, roomCycle: true},
			graph("testing/live -> rest", "rest -> testing/live"), nil},
		{"stacked", all, graph("cmd/a -> rest", "rest -> internal/log", "rest/x -> store", "internal/metrics -> store", "store/embedded -> store"), nil},
	}
	for _, tt := range tests {
		got := checkRules([]rule{tt.rule}, tt.pkgs)
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tt.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, want)
		}
	}
}
