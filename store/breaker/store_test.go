package breaker_test

import (
	"testing"

	"providerdir/internal/teststore"
	"providerdir/store"
	"providerdir/store/breaker"
	"providerdir/store/storetest"
)

// The circuit in front of a store changes nothing about the contract while the store answers.
func TestConformanceThroughCircuit(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return breaker.Wrap(teststore.Embedded(t), breaker.New(breaker.DefaultThreshold, breaker.DefaultCoolDown, nil))
	})
}
