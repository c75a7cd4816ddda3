package ingest

import (
	"context"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/nppes"
	"providerdir/store"
)

// NPPES monthly full files. The *_fileheader.csv files that ship beside them hold only a header
// row and are not matched.
var (
	npidataFile   = pattern(`npidata_pfile_[0-9-]+\.csv`)
	plFile        = pattern(`pl_pfile_[0-9-]+\.csv`)
	othernameFile = pattern(`othername_pfile_[0-9-]+\.csv`)
	endpointFile  = pattern(`endpoint_pfile_[0-9-]+\.csv`)
)

// loadNPPES stores every registry row as read: registry fields are direct, so confidence is 1.
func loadNPPES(ctx context.Context, l *familyLoad, files []sourceFile) error {
	prov := l.snapshot(mapping.NPPES).Provenance(1)
	held := newHeldRegistry(prov)
	l.run.registry = held
	err := loadInto(ctx, l, files, npidataFile, nppes.NewReader, catalog.RegistryProviders, func(p *nppes.Provider) (store.Document, bool, error) {
		rec, keys := mapping.Registry(p)
		held.add(&rec)
		doc, err := mapping.NewDocument(p.NPI, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	err = loadInto(ctx, l, files, plFile, nppes.NewLocationReader, catalog.RegistryLocations, func(loc *nppes.Location) (store.Document, bool, error) {
		id, rec, keys := mapping.RegistryLocation(loc)
		doc, err := mapping.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	err = loadInto(ctx, l, files, othernameFile, nppes.NewOtherNameReader, catalog.RegistryOtherNames, func(o *nppes.OtherName) (store.Document, bool, error) {
		id, rec, keys := mapping.RegistryOtherName(o)
		doc, err := mapping.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	// A drop without an endpoint file (releases before the file existed) leaves the collection
	// empty: the resources then have no endpoints.
	return loadInto(ctx, l, files, endpointFile, nppes.NewEndpointReader, catalog.RegistryEndpoints, func(e *nppes.Endpoint) (store.Document, bool, error) {
		id, rec, keys := mapping.RegistryEndpoint(e)
		doc, err := mapping.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
}
