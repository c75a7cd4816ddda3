package resolverserver

import (
	"fmt"
	"reflect"
)

// Contained reports where got, a decoded JSON value, says anything want does not: each key of an
// object of got must be in want's with a contained value, arrays must match element by element,
// and everything else must be equal. Keys of want that got lacks are allowed: a typed client
// carries what the contract names and may leave out what the resolver adds within its version.
func Contained(got, want any) error { return contained("$", got, want) }

func contained(path string, got, want any) error {
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: an object where the resolver has %v", path, want)
		}
		for k, v := range g {
			wv, ok := w[k]
			if !ok {
				return fmt.Errorf("%s.%s: %v, absent from the resolver's body", path, k, v)
			}
			if err := contained(path+"."+k, v, wv); err != nil {
				return err
			}
		}
		return nil
	case []any:
		w, ok := want.([]any)
		if !ok || len(w) != len(g) {
			return fmt.Errorf("%s: %d elements where the resolver has %v", path, len(g), want)
		}
		for i := range g {
			if err := contained(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s: %v where the resolver has %v", path, got, want)
	}
	return nil
}
