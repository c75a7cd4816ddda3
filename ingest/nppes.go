package ingest

import (
	"context"
	"maps"
	"slices"
	"strings"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/match"
	"providerdir/source/nppes"
	"providerdir/store"
	"providerdir/stored"
)

// NPPES monthly full files, and the weekly update files of the same layout (see delta.go). The
// *_fileheader.csv files that ship beside them hold only a header row and are not matched.
var (
	npidataFile   = pattern(`npidata_pfile_[0-9-]+\.csv`)
	plFile        = pattern(`pl_pfile_[0-9-]+\.csv`)
	othernameFile = pattern(`othername_pfile_[0-9-]+\.csv`)
	endpointFile  = pattern(`endpoint_pfile_[0-9-]+\.csv`)
)

// loadNPPES stores every registry row as read (registry fields are direct, so confidence is 1),
// and the name lexicon of the records' words.
func loadNPPES(ctx context.Context, l *familyLoad, files []sourceFile) error {
	prov := l.snapshot(stored.NPPES).Provenance(1)
	held := newHeldRegistry(prov)
	l.run.registry = held
	words, err := loadNPPESRows(ctx, l, files, prov, func(rec *stored.RegistryRecord, _ store.Document) { held.add(rec) }, nil)
	if err != nil {
		return err
	}
	return writeNameWords(ctx, l, prov, slices.Collect(maps.Keys(words)))
}

// nameWords is the set of the words of registry names that belong in the name lexicon
// (match.InLexicon).
type nameWords map[string]struct{}

// addFrom adds the lexicon words among a registry record's keys: its name tokens.
func (w nameWords) addFrom(keys stored.Keys) {
	for _, k := range keys {
		if k.Param != match.ParamToken || !match.InLexicon(k.Value) {
			continue
		}
		if _, ok := w[k.Value]; !ok {
			w[strings.Clone(k.Value)] = struct{}{}
		}
	}
}

// writeNameWords writes a document of the name lexicon for each word.
func writeNameWords(ctx context.Context, l *familyLoad, prov stored.Provenance, words []string) error {
	if l.run.writer != nil {
		l.run.writer.recycle(catalog.RegistryNameWords, stored.Recycle)
	}
	for _, w := range words {
		rec, keys := mapping.NameWord(w)
		doc, err := stored.NewDocument(w, rec, prov, keys)
		if err != nil {
			return err
		}
		if err := l.emit(ctx, catalog.RegistryNameWords, doc); err != nil {
			return err
		}
	}
	return nil
}

// loadNPPESRows writes every row of the NPPES files as a document of its collection, handing
// each registry record and its document to provider (which keeps nothing of the document's
// body: it is reused once written) and each row's NPI to row (either may be nil), and returns
// the lexicon words of the records' names. Monthly full files and weekly update files are read
// alike.
func loadNPPESRows(ctx context.Context, l *familyLoad, files []sourceFile, prov stored.Provenance,
	provider func(*stored.RegistryRecord, store.Document), row func(npi string)) (nameWords, error) {
	saw := func(npi string) {
		if row != nil {
			row(npi)
		}
	}
	words := nameWords{}
	err := loadInto(ctx, l, files, npidataFile, nppes.NewReader, catalog.RegistryProviders, func(p *nppes.Provider) (store.Document, bool, error) {
		rec, keys := mapping.Registry(p)
		words.addFrom(keys)
		saw(p.NPI)
		doc, err := stored.NewDocument(p.NPI, rec, prov, keys)
		if err == nil && provider != nil {
			provider(&rec, doc)
		}
		return doc, true, err
	})
	if err != nil {
		return nil, err
	}
	err = loadInto(ctx, l, files, plFile, nppes.NewLocationReader, catalog.RegistryLocations, func(loc *nppes.Location) (store.Document, bool, error) {
		id, rec, keys := mapping.RegistryLocation(loc)
		saw(loc.NPI)
		doc, err := stored.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return nil, err
	}
	err = loadInto(ctx, l, files, othernameFile, nppes.NewOtherNameReader, catalog.RegistryOtherNames, func(o *nppes.OtherName) (store.Document, bool, error) {
		id, rec, keys := mapping.RegistryOtherName(o)
		saw(o.NPI)
		doc, err := stored.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return nil, err
	}
	// A drop without an endpoint file (releases before the file existed) leaves the collection
	// empty: the resources then have no endpoints.
	err = loadInto(ctx, l, files, endpointFile, nppes.NewEndpointReader, catalog.RegistryEndpoints, func(e *nppes.Endpoint) (store.Document, bool, error) {
		id, rec, keys := mapping.RegistryEndpoint(e)
		saw(e.NPI)
		doc, err := stored.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
	return words, err
}
