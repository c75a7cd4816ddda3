package ingest

import (
	"encoding/json"

	"providerdir/catalog"
	"providerdir/store"
)

// manifestDocument is a manifest as a document of the manifests collection.
func manifestDocument(m catalog.Manifest) (store.Document, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return store.Document{}, err
	}
	return store.Document{ID: m.Family, Body: body, Keys: []store.Key{{Param: "family", Value: m.Family}}}, nil
}
