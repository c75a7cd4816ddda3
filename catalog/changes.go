package catalog

// ChangeKind is the store record kind of change-set chunks, read by the webhook worker.
const ChangeKind = "changeset"

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
