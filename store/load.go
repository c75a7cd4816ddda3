package store

import "context"

// Loader is implemented by backends that can fill an empty collection faster than Put, by
// building the collection's storage in one pass instead of updating it document by document.
// An ingest writes every collection of a new generation from empty, so it loads through a
// Loader when the backend has one and through Put otherwise; readers see the same documents
// either way. The conformance suite holds a Loader to exactly that.
//
// A Loader that only forwards to another store (a remote client, a wrapper) fails Load with an
// error matching errors.ErrUnsupported when the store behind it cannot load; callers then
// write through Put.
type Loader interface {
	// Load starts filling a collection of a generation. The collection must hold no documents
	// (else ErrConflict).
	Load(ctx context.Context, generation, collection string) (Loading, error)
}

// Loading is one bulk load in progress. Nothing it is given is visible until Commit, which
// makes every document visible at once, as if they had been Put in the order they were added
// (the last document with an ID wins). A Loading is used by one goroutine at a time and is
// spent after Commit or Abort.
type Loading interface {
	// Add takes a batch of documents, validated as Put validates them. Like Put, it keeps no
	// reference to their memory once it returns.
	Add(ctx context.Context, docs []Document) error
	// Commit makes the documents visible. If the collection received documents by Put since the
	// load began, Commit returns ErrConflict and leaves the collection as those Puts left it;
	// on any error nothing of the load is visible.
	Commit(ctx context.Context) error
	// Abort drops whatever was added. It is safe after Commit and safe to call twice.
	Abort()
}

// ReadBack is implemented by a Loading whose backend can keep what it loads where reading it
// soon after is cheap. A loader that will read a collection's documents again at random before
// it is done (an ingest's Open Payments matching looks registry providers up) calls ReadBack
// before its first Add; a backend that writes loads around its caches, since most of what it
// loads is not read again soon, keeps those documents cached.
type ReadBack interface {
	ReadBack()
}
