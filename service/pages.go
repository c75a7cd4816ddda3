package service

import (
	"context"
	"errors"
	"fmt"

	"providerdir/rest/auditpack"
	"providerdir/web"
)

// auditPages adapts the audit packs to the web page's view of one: the web surface does not
// import the JSON APIs, so the wiring translates between them.
func auditPages(packs *auditpack.Service) web.AuditSource {
	return func(ctx context.Context, slug string) (*web.AuditPack, error) {
		p, err := packs.Build(ctx, slug)
		if errors.Is(err, auditpack.ErrNoPack) || errors.Is(err, auditpack.ErrNotLoaded) {
			return nil, fmt.Errorf("%w: %v", web.ErrNoAuditPack, err)
		}
		if err != nil {
			return nil, err
		}
		return auditView(p), nil
	}
}

// auditView is the page's view of a pack: its figures, one line per field's provenance, its
// caveats and its reproducibility steps in order.
func auditView(p auditpack.Pack) *web.AuditPack {
	v := &web.AuditPack{
		Title:              p.DisplayName,
		Slug:               p.DatasetSlug,
		MethodologyVersion: p.MethodologyVersion,
		Provenance:         make(map[string]string, len(p.Provenance)),
		Limitations:        p.Limitations,
	}
	for _, s := range p.Figures.States {
		v.Rows = append(v.Rows, web.AuditRow{State: s.StateCode, Count: s.Count, Population: s.Population, Per100k: s.Per100k})
	}
	for field, fp := range p.Provenance {
		line := fp.Source
		if fp.Column != "" {
			line += ", column " + fp.Column
		}
		if fp.Snapshot != "" {
			line += ", snapshot " + fp.Snapshot
		}
		v.Provenance[field] = line + ": " + fp.Derivation
	}
	for _, s := range p.Reproducibility.Steps {
		v.Reproducibility = append(v.Reproducibility, s.Action)
	}
	return v
}
