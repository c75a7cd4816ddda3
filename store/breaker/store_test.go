package breaker_test

import (
	"testing"

	"providerdir/store"
	"providerdir/store/breaker"
	"providerdir/testing/backends"
	"providerdir/testing/storecontract"
)

// The circuit in front of a store changes nothing about the contract while the store answers.
func TestConformanceThroughCircuit(t *testing.T) {
	storecontract.Run(t, func(t *testing.T) store.Store {
		return breaker.Wrap(backends.Embedded(t), breaker.New(breaker.DefaultThreshold, breaker.DefaultCoolDown, nil))
	})
}
