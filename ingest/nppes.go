package ingest

import (
	"context"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/nppes"
	"providerdir/store"
)

// NPPES monthly full files, and the weekly update files of the same layout (see delta.go). The
// *_fileheader.csv files that ship beside them hold only a header row and are not matched.
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
	return loadNPPESRows(ctx, l, files, prov, held.add, nil)
}

// loadNPPESRows writes every row of the NPPES files as a document of its collection, handing
// each registry record to provider and each row's NPI to row (either may be nil). Monthly full
// files and weekly update files are read alike.
func loadNPPESRows(ctx context.Context, l *familyLoad, files []sourceFile, prov mapping.Provenance,
	provider func(*mapping.RegistryRecord), row func(npi string)) error {
	saw := func(npi string) {
		if row != nil {
			row(npi)
		}
	}
	err := loadInto(ctx, l, files, npidataFile, nppes.NewReader, catalog.RegistryProviders, func(p *nppes.Provider) (store.Document, bool, error) {
		rec, keys := mapping.Registry(p)
		if provider != nil {
			provider(&rec)
		}
		saw(p.NPI)
		doc, err := mapping.NewDocument(p.NPI, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	err = loadInto(ctx, l, files, plFile, nppes.NewLocationReader, catalog.RegistryLocations, func(loc *nppes.Location) (store.Document, bool, error) {
		id, rec, keys := mapping.RegistryLocation(loc)
		saw(loc.NPI)
		doc, err := mapping.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	err = loadInto(ctx, l, files, othernameFile, nppes.NewOtherNameReader, catalog.RegistryOtherNames, func(o *nppes.OtherName) (store.Document, bool, error) {
		id, rec, keys := mapping.RegistryOtherName(o)
		saw(o.NPI)
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
		saw(e.NPI)
		doc, err := mapping.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
}
