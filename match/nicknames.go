package match

import (
	_ "embed"
	"strings"
	"sync"
)

// nicknamesCSV is the nickname table of the carltonnorthern/nicknames project
// (https://github.com/carltonnorthern/nicknames, names.csv, Apache License 2.0): one line per
// name, the name first and then the names it is related to as a nickname or a formal form
// ("william,willy,bell,bela,bill,will,billy,willie"). The facts are theirs; the reading of them
// below is this package's.
//
//go:embed nicknames.csv
var nicknamesCSV string

var (
	nicknameOnce sync.Once
	nicknameMap  map[string][]string
)

// Nicknames returns the names related to a folded given name by the nickname table, in both
// directions (William gives Bill, and Bill gives William), excluding the name itself. The
// relation is the table's lines taken one hop: a name and each name on its line.
func Nicknames(name string) []string {
	nicknameOnce.Do(loadNicknames)
	return nicknameMap[name]
}

// Related reports whether two folded given names are related by the nickname table.
func Related(a, b string) bool {
	for _, n := range Nicknames(a) {
		if n == b {
			return true
		}
	}
	return false
}

// loadNicknames builds the symmetric relation from the embedded table. Entries are folded like
// every other name (the table's "k.c." becomes "k c" and is dropped: a nickname is one token).
func loadNicknames() {
	rel := map[string]map[string]bool{}
	link := func(a, b string) {
		if a == b {
			return
		}
		if rel[a] == nil {
			rel[a] = map[string]bool{}
		}
		rel[a][b] = true
	}
	for _, line := range strings.Split(nicknamesCSV, "\n") {
		var names []string
		for _, f := range strings.Split(line, ",") {
			if t := Tokens(f); len(t) == 1 {
				names = append(names, t[0])
			}
		}
		if len(names) < 2 {
			continue
		}
		for _, n := range names[1:] {
			link(names[0], n)
			link(n, names[0])
		}
	}
	nicknameMap = make(map[string][]string, len(rel))
	for name, set := range rel {
		list := make([]string, 0, len(set))
		for n := range set {
			list = append(list, n)
		}
		sortStrings(list)
		nicknameMap[name] = list
	}
}
