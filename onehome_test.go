package providerdir

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A home names the declarations a shape the packages share may have: the structs with a field
// of one JSON key, or the interfaces with one method.
type home struct {
	shape           string
	jsonKey, method string   // one of the two
	declared        []string // "package.Type", package paths below the module
}

// homes are the shared shapes and their one home each; a wire shape that wraps a home is
// listed beside it, its doc comment saying which contract names its keys.
var homes = []home{
	{shape: "a state's figures", jsonKey: "rank_density",
		declared: []string{"mapping/study.Row", "rest/dataset.StateFigures", "rest/supply.StateRow"}},
	{shape: "the national figures of a dataset as published", jsonKey: "underserved_states",
		declared: []string{"rest/dataset.NationalFigures"}},
	{shape: "the language model", method: "Complete", declared: []string{"llm.Completer"}},
}

// TestOneHome checks that each shape in homes is declared where homes says and nowhere else,
// so a copy of a shared shape fails with the package that declares it.
func TestOneHome(t *testing.T) {
	pkgs := listPackages(t)
	fset := token.NewFileSet()
	files := map[string][]*ast.File{}
	for path, p := range pkgs {
		for _, name := range p.files {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files[path] = append(files[path], f)
		}
	}
	for _, h := range homes {
		if got := h.declarers(files); !slices.Equal(got, h.declared) {
			t.Errorf("%s is declared by %q, want %q alone", h.shape, got, h.declared)
		}
	}
}

// declarers returns the types of files, by package path, that declare the shape, sorted.
func (h home) declarers(files map[string][]*ast.File) []string {
	var out []string
	for path, fs := range files {
		for _, f := range fs {
			ast.Inspect(f, func(n ast.Node) bool {
				spec, ok := n.(*ast.TypeSpec)
				if !ok {
					return true
				}
				if h.declares(spec.Type) {
					out = append(out, path+"."+spec.Name.Name)
				}
				return false
			})
		}
	}
	slices.Sort(out)
	return out
}

// declares reports whether a type is a struct with a field of h's JSON key or an interface
// with h's method.
func (h home) declares(typ ast.Expr) bool {
	switch typ := typ.(type) {
	case *ast.StructType:
		return h.jsonKey != "" && slices.ContainsFunc(typ.Fields.List, func(f *ast.Field) bool {
			if f.Tag == nil {
				return false
			}
			tag, err := strconv.Unquote(f.Tag.Value)
			name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			return err == nil && name == h.jsonKey
		})
	case *ast.InterfaceType:
		return h.method != "" && slices.ContainsFunc(typ.Methods.List, func(f *ast.Field) bool {
			return slices.ContainsFunc(f.Names, func(n *ast.Ident) bool { return n.Name == h.method })
		})
	}
	return false
}

// TestDeclarers holds the shape finder to small sources: a struct by its field's JSON key
// (options after the name aside, another key or an untagged field not), an interface by its
// method, a type inside a function too.
func TestDeclarers(t *testing.T) {
	const src = `package p
type Row struct { Rank int ` + "`json:\"rank_density,omitempty\"`" + ` }
type Other struct { Rank int ` + "`json:\"rank\"`" + `; Plain int }
type Completer interface { Complete() string }
type Reader interface { Read() }
func f() { type local struct { R int ` + "`json:\"rank_density\"`" + ` }; _ = local{} }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]*ast.File{"p": {f}}
	tests := []struct {
		h    home
		want []string
	}{
		{home{jsonKey: "rank_density"}, []string{"p.Row", "p.local"}},
		{home{method: "Complete"}, []string{"p.Completer"}},
		{home{jsonKey: "absent"}, nil},
	}
	for _, tt := range tests {
		if got := tt.h.declarers(files); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: got %q, want %q", tt.h, got, tt.want)
		}
	}
}
