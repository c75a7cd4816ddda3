package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"providerdir/store"
)

// OpenMonitored opens the store as Open does, without the circuit breaker, with monitor told of
// every command the store sends: the benchmarks count a page's round trips with it.
func OpenMonitored(ctx context.Context, uri string, monitor *event.CommandMonitor) (store.Store, error) {
	return open(ctx, uri, options.Client().SetMonitor(monitor))
}
