package breaker_test

import (
	"testing"

	"providerdir/internal/testing/backends"
	"providerdir/internal/testing/storecontract"
	"providerdir/store"
	"providerdir/store/breaker"
)

// The circuit in front of a store changes nothing about the contract while the store answers.
func TestConformanceThroughCircuit(t *testing.T) {
	storecontract.Run(t, func(t *testing.T) store.Store {
		return breaker.Wrap(backends.Embedded(t), breaker.New(breaker.DefaultThreshold, breaker.DefaultCoolDown, nil))
	})
}
