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
}
