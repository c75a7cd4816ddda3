package config

import (
	"flag"
	"fmt"

	"providerdir/internal/storeopen"
)

// SandboxKeyFile is the file name of the SMART sandbox client's private key in the store's
// LocalDir.
const SandboxKeyFile = "sandbox-client.jwk"

// StoreFlag defines --store on fs for a command other than providerd (providerctl's subcommands)
// with the same default and PROVIDERD_STORE fallback. Call the returned function after fs.Parse.
func StoreFlag(fs *flag.FlagSet, getenv func(string) string) func() (storeopen.Spec, error) {
	v := fs.String("store", DefaultStore, "store backend: embedded:DIR, mongodb://... or mongodb+srv://... (env "+EnvName("store")+")")
	return func() (storeopen.Spec, error) {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "store" })
		val, from := resolve("store", *v, set, getenv)
		spec, err := storeopen.Parse(val)
		if err != nil {
			return storeopen.Spec{}, fmt.Errorf("invalid %s: %w", from, err)
		}
		return spec, nil
	}
}
