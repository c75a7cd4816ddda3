package ingest

import (
	"strconv"

	"providerdir/ident"
	"providerdir/mapping/study"
	"providerdir/stored"
)

// heldRegistry is what the supply studies read of the registry, kept while the registry loads:
// for each NPI holding a registered code, its state, status, entity type and codes. With it the
// supply projection counts from memory instead of reading a national registry back from the
// store. It keeps the store's last-wins rule for an NPI repeated in the file, so its counts are
// those of the stored collection.
type heldRegistry struct {
	prov   stored.Provenance
	bit    map[string]uint  // registered code -> its bit in heldProvider.codes
	codes  []string         // the registered codes in bit order
	states []ident.State    // heldProvider.state - 1 indexes it
	state  map[string]uint8 // a state's code -> its heldProvider.state
	byNPI  map[uint64]heldProvider
}

// heldProvider is one NPI's part of the studies, a few bytes instead of its record. It holds no
// pointer, so the garbage collector never scans the national registry's map of them.
type heldProvider struct {
	codes  uint64 // a bit per registered code the record lists
	state  uint8  // 1 + the state's index in heldRegistry.states; 0 when it is none of ident's
	active bool
	org    bool
}

func newHeldRegistry(prov stored.Provenance) *heldRegistry {
	h := &heldRegistry{prov: prov, bit: map[string]uint{}, codes: study.AllCodes(), states: ident.States(), state: map[string]uint8{},
		byNPI: map[uint64]heldProvider{}}
	if len(h.codes) > 64 || len(h.states) > 255 {
		panic("ingest: more registered codes or states than heldProvider holds")
	}
	for i, s := range h.states {
		h.state[s.Code] = uint8(i + 1)
	}
	for i, c := range h.codes {
		h.bit[c] = uint(i)
	}
	return h
}

// add holds one registry record as stored. A record without a registered code drops what an
// earlier record of its NPI held, as its stored document replaces the earlier one.
func (h *heldRegistry) add(rec *stored.RegistryRecord) {
	npi, err := strconv.ParseUint(rec.NPI, 10, 64)
	if err != nil {
		return // the reader admits only valid NPIs
	}
	var mask uint64
	for _, t := range rec.Taxonomies {
		if b, ok := h.bit[t.Code]; ok {
			mask |= 1 << b
		}
	}
	if mask == 0 {
		delete(h.byNPI, npi)
		return
	}
	p := study.FromRecord(*rec)
	held := heldProvider{codes: mask, active: p.Active, org: p.Organization}
	if st, ok := ident.LookupState(p.State); ok {
		held.state = h.state[st.Code]
	}
	h.byNPI[npi] = held
}

// tally counts the held records as tallyRegistry counts the stored ones, and reports whether
// any record was held.
func (h *heldRegistry) tally(t *study.Tally) bool {
	codes := make([]string, 0, len(h.codes))
	for _, p := range h.byNPI {
		codes = codes[:0]
		for i, c := range h.codes {
			if p.codes&(1<<uint(i)) != 0 {
				codes = append(codes, c)
			}
		}
		state := ""
		if p.state > 0 {
			state = h.states[p.state-1].Code
		}
		t.Add(study.Provider{Active: p.active, Organization: p.org, State: state, Codes: codes})
	}
	return len(h.byNPI) > 0
}
