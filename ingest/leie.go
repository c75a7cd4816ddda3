package ingest

import (
	"context"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/leie"
	"providerdir/store"
	"providerdir/stored"
)

var (
	leieUpdated = pattern(`UPDATED\.csv`)
	leieMonthly = pattern(`\d{4}(EXCL|REIN)\.csv`)
	leieRein    = pattern(`\d{4}REIN\.csv`)
)

// loadLEIE stores the exclusion list. Matching an exclusion to a provider is by the NPI the
// list publishes: a direct field, so confidence is 1.
func loadLEIE(ctx context.Context, l *familyLoad, files []sourceFile) error {
	prov := l.snapshot(stored.LEIE).Provenance(1)
	err := loadInto(ctx, l, files, leieUpdated, leie.NewReader, catalog.Exclusions, func(e *leie.Exclusion) (store.Document, bool, error) {
		id, rec, keys := mapping.Exclusion(e)
		doc, err := stored.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	for _, f := range filesMatching(files, leieMonthly) {
		action := "exclusion"
		if leieRein.MatchString(f.base()) {
			action = "reinstatement"
		}
		err := loadInto(ctx, l, []sourceFile{f}, leieMonthly, leie.NewReader, catalog.ExclusionActions, func(e *leie.Exclusion) (store.Document, bool, error) {
			id, rec, keys := mapping.Exclusion(e)
			keys.Add("action", action)
			doc, err := stored.NewDocument(action+"."+id, rec, prov, keys)
			return doc, true, err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
