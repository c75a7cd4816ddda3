package catalog

import "fmt"

// ChangeKind is the store record kind of change-set chunks, read by the webhook worker.
const ChangeKind = "changeset"

// ChangeRecordID is the id of a change-set chunk: the generation written (a stack's top layer),
// the collection and the chunk's number, so that records sort by generation, then collection.
// The first chunk of the manifests' change set carries the switch's Generations.
func ChangeRecordID(generation, collection string, chunk int) string {
	return fmt.Sprintf("%s.%s.%06d", generation, collection, chunk)
}

// ChangeSet is one stored chunk of the ids that changed in one collection at one ingest.
type ChangeSet struct {
	Generation string   `json:"generation"`
	Previous   string   `json:"previous_generation"`
	Collection string   `json:"collection"`
	Added      []string `json:"added,omitempty"`
	Changed    []string `json:"changed,omitempty"`
	Removed    []string `json:"removed,omitempty"`
	// Generations is set on the first record of the manifests' change set: every collection of
	// the serving snapshot with the generation it had before the switch (empty when it was not
	// served) and the one it has after, the same for a collection the ingest did not write. A
	// reader compares what the snapshot served before and after through it.
	Generations map[string]GenerationPair `json:"generations,omitempty"`
}

// GenerationPair is a collection's generation before and after one switch.
type GenerationPair struct {
	Previous   string `json:"previous"`
	Generation string `json:"generation"`
}
