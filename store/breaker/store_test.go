package breaker_test

import (
	"testing"

	"providerdir/store"
	"providerdir/store/breaker"
	"providerdir/store/embedded"
	"providerdir/store/storetest"
)

// The circuit in front of a store changes nothing about the contract while the store answers.
func TestConformanceThroughCircuit(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := embedded.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		w := breaker.Wrap(s, breaker.New(breaker.DefaultThreshold, breaker.DefaultCoolDown, nil))
		t.Cleanup(func() { _ = w.Close() })
		return w
	})
}
