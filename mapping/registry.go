// Package mapping turns typed source records into stored documents: each record in its stored
// shape (package stored), its search keys, and its document id. It is the one package that knows
// both the federal files (via source/...) and the stored shapes; the surfaces read the stored
// shapes and never import a source reader.
package mapping

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"providerdir/match"
	"providerdir/source"
	"providerdir/source/nppes"
	"providerdir/stored"
)

// Registry maps one npidata_pfile row to its record and search keys.
func Registry(p *nppes.Provider) (stored.RegistryRecord, stored.Keys) {
	rec := stored.RegistryRecord{
		NPI:                 p.NPI,
		EntityType:          p.EntityType.String(),
		ReplacementNPI:      p.ReplacementNPI,
		OrganizationName:    p.OrgName,
		OtherName:           p.OtherOrgName,
		Sex:                 p.Sex,
		PracticeAddress:     address(p.Practice),
		MailingAddress:      address(p.Mailing),
		EnumerationDate:     p.EnumerationDate.String(),
		LastUpdated:         p.LastUpdate.String(),
		CertificationDate:   p.CertificationDate.String(),
		DeactivationReason:  p.DeactivationReason,
		DeactivationDate:    p.DeactivationDate.String(),
		ReactivationDate:    p.ReactivationDate.String(),
		Active:              !p.Deactivated(),
		OrganizationSubpart: p.OrgSubpart == source.Yes,
		ParentOrganization:  p.ParentOrgLBN,
		Taxonomies:          []stored.RegistryTaxonomy{},
	}
	if p.EntityType == nppes.EntityIndividual {
		n := personName(p.Name)
		rec.Name = &n
	}
	if p.Official.Last != "" || p.Official.First != "" {
		rec.AuthorizedOfficial = &stored.Official{Name: personName(p.Official.Name), Title: p.Official.Title, Phone: p.Official.Phone}
	}
	// No npi key: the document's id is the NPI, and a lookup by NPI is a read by id.
	var k stored.Keys
	k.Add(stored.KeyEntity, rec.EntityType)
	k.Add(stored.KeyActive, boolKey(rec.Active))
	k.Add(stored.KeyState, p.Practice.State)
	k.Add(stored.KeyPostal, postalKeys(p.Practice.PostalCode)...)
	for _, t := range p.Taxonomies {
		if t.Code == "" {
			continue
		}
		rec.Taxonomies = append(rec.Taxonomies, stored.RegistryTaxonomy{Code: t.Code, License: t.License, LicenseState: t.LicenseState, Primary: t.Primary})
		k.Add(stored.KeyTaxonomy, t.Code)
	}
	if t, ok := p.PrimaryTaxonomy(); ok {
		rec.PrimaryTaxonomy = t.Code
	}
	if rec.EntityType == "organization" {
		if n := stored.LegalNameKey(rec.OrganizationName); n != "" && !rec.OrganizationSubpart {
			k.Add(stored.KeyLegalName, n)
		}
		if n := stored.LegalNameKey(rec.ParentOrganization); n != "" && rec.OrganizationSubpart {
			k.Add(stored.KeyParentName, n)
		}
	}
	// Names are searched through the resolver's tokens (addSearch) and matched through the
	// family, given and match keys; no query reads a whole-name key of a registry record.
	if rec.Name != nil {
		k.AddText(stored.KeyFamily, rec.Name.Last)
		k.AddText(stored.KeyGiven, rec.Name.First)
		k.AddText(stored.KeyGiven, rec.Name.Middle)
	}
	addSearch(&k, rec)
	if state := p.Practice.State; rec.Name != nil && rec.Active && state != "" && !strings.Contains(state, "|") {
		zip := postalKeys(p.Practice.PostalCode)[0]
		if strings.Contains(zip, "|") {
			zip = ""
		}
		for _, f := range k {
			if f.Param != stored.KeyFamily {
				continue
			}
			for _, g := range k {
				if g.Param != stored.KeyGiven {
					continue
				}
				k.Add(stored.KeyMatchState, stored.MatchKey(f.Value, g.Value, state))
				if zip != "" {
					k.Add(stored.KeyMatchZip, stored.MatchKey(f.Value, g.Value, state, zip))
				}
			}
		}
	}
	return rec, k
}

// RegistryLocation maps one pl_pfile row (a secondary practice location) to its document id,
// record and keys. The id is the NPI and a digest of the address, stable across snapshots so a
// location that did not move is not reported as changed.
func RegistryLocation(l *nppes.Location) (string, stored.Address, stored.Keys) {
	a := address(l.Address)
	if l.Extension != "" {
		a.Phone += " x" + l.Extension
	}
	var k stored.Keys
	k.Add(stored.KeyNPI, l.NPI)
	return l.NPI + "." + digest(a.Line1, a.Line2, a.City, a.State, a.PostalCode, a.Country), a, k
}

// RegistryOtherName maps one othername_pfile row to its document id, record and keys.
func RegistryOtherName(o *nppes.OtherName) (string, stored.OtherNameRecord, stored.Keys) {
	var k stored.Keys
	k.Add(stored.KeyNPI, o.NPI)
	return o.NPI + "." + digest(o.Name, o.TypeCode), stored.OtherNameRecord{NPI: o.NPI, Name: o.Name, TypeCode: o.TypeCode}, k
}

func address(a nppes.Address) stored.Address {
	return stored.Address{Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, PostalCode: a.PostalCode,
		Country: a.Country, Phone: a.Phone, Fax: a.Fax}
}

func personName(n nppes.Name) stored.PersonName {
	return stored.PersonName{Prefix: n.Prefix, First: n.First, Middle: n.Middle, Last: n.Last, Suffix: n.Suffix, Credential: n.Credential}
}

// postalKeys indexes a ZIP code by its 5-digit form and, for ZIP+4, the full 9 digits, so a
// search by either finds it.
func postalKeys(zip string) []string {
	if len(zip) > 5 {
		return []string{zip[:5], zip}
	}
	return []string{zip}
}

func boolKey(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// digest is a short stable id part derived from field values.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// addSearch adds to k the provider-search keys of package match: the folded tokens of the person's
// name or the organization's names, the same tokens qualified by the practice state, and the
// tokens paired with the initials of the name's other words. Typos
// are found through the name lexicon (NameWord), which ingest writes once per distinct token.
func addSearch(k *stored.Keys, rec stored.RegistryRecord) {
	var toks, pairs []string
	if rec.Name != nil {
		toks = match.RecordTokens(rec.Name.First, rec.Name.Middle, rec.Name.Last)
		pairs = match.PersonInitialPairs(rec.Name.First, rec.Name.Middle, rec.Name.Last)
	} else {
		toks = match.RecordTokens(rec.OrganizationName, rec.OtherName)
		pairs = match.OrgInitialPairs(rec.OrganizationName, rec.OtherName)
	}
	*k = slices.Grow(*k, 2*len(toks)+len(pairs))
	k.Add(match.ParamToken, toks...)
	k.Add(match.ParamStateToken, match.InState(rec.PracticeAddress.State, toks)...)
	k.Add(match.ParamTokenInitial, pairs...)
}

// NameWord returns the lexicon record and keys of a record token, whose document id is the
// word itself: the keys are its single-character deletions, by which a query within one edit
// of it finds it.
func NameWord(word string) (stored.NameWordRecord, stored.Keys) {
	var keys stored.Keys
	keys.Add(match.ParamDeletion, match.Deletions(word)...)
	return stored.NameWordRecord{Word: word}, keys
}
