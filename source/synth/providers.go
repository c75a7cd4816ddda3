package synth

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// The provider pass: every provider record, in index order, becomes its NPPES row and its rows
// in the other provider-keyed files. Records are independent (each is a function of seed and
// index), so blocks of them are derived and formatted by several goroutines while one goroutine
// writes the blocks in order. The output does not depend on the number of goroutines.

// Provider-keyed files, as indices of generation.pf.
const (
	pfNPPES = iota
	pfLocations
	pfOtherNames
	pfLEIE
	pfEnrollments
	pfReassignments
	pfPayments
	pfLegacyPayments
	pfEndpoints
	pfSAM
	pfMIPS
	pfMIPSOlder
	numProviderFiles
)

// blockSize is the number of provider records per block: large enough to amortize the hand-off,
// small enough that the blocks in flight stay a few megabytes.
const blockSize = 1024

// block is the formatted output of the records [start, end).
type block struct {
	start, end int64
	buf        [numProviderFiles][]byte
	rows       [numProviderFiles]int64
	bad        [numProviderFiles][]pendingBad
	tally      tally
	changes    []pendingChange
	err        error
}

// tally counts what the manifest reports about provider records; blocks are summed in order.
type tally struct {
	individuals, organizations, deactivated, reactivated int64
	secondary, otherNames, excludedWithNPI, endpoints    int64
	enrollments, reassignments                           int64
	paymentRows, paymentRecipients, legacyPaymentRows    int64
	samRows, samWithNPI                                  int64
	mipsRows, mipsOlderRows, mipsClinicians              int64
	byState                                              [51]int64
	taxAny, taxPrimary                                   []int64     // per registered code
	taxStates                                            [][51]int64 // per registered code
}

func (t *tally) init(codes int) {
	t.taxAny, t.taxPrimary, t.taxStates = make([]int64, codes), make([]int64, codes), make([][51]int64, codes)
}

func (t *tally) add(u *tally) {
	t.individuals += u.individuals
	t.organizations += u.organizations
	t.deactivated += u.deactivated
	t.reactivated += u.reactivated
	t.secondary += u.secondary
	t.otherNames += u.otherNames
	t.endpoints += u.endpoints
	t.excludedWithNPI += u.excludedWithNPI
	t.enrollments += u.enrollments
	t.reassignments += u.reassignments
	t.paymentRows += u.paymentRows
	t.paymentRecipients += u.paymentRecipients
	t.legacyPaymentRows += u.legacyPaymentRows
	t.samRows += u.samRows
	t.samWithNPI += u.samWithNPI
	t.mipsRows += u.mipsRows
	t.mipsOlderRows += u.mipsOlderRows
	t.mipsClinicians += u.mipsClinicians
	for s := range t.byState {
		t.byState[s] += u.byState[s]
	}
	for c := range t.taxAny {
		t.taxAny[c] += u.taxAny[c]
		t.taxPrimary[c] += u.taxPrimary[c]
		for s := range t.taxStates[c] {
			t.taxStates[c][s] += u.taxStates[c][s]
		}
	}
}

// blocker derives and formats blocks; each goroutine has its own.
type blocker struct {
	g            *generation
	r, rb        *rng
	row          []string
	legacyHeader []string
}

func (g *generation) newBlocker() *blocker {
	return &blocker{g: g, r: newRNG(), rb: newRNG(), row: make([]string, len(g.layout.names)), legacyHeader: opLegacyHeader()}
}

func (k *blocker) add(b *block, f int, vals []string) {
	c := k.g.pf[f]
	b.buf[f] = formatRow(b.buf[f], vals, c.quote, c.eol)
	b.rows[f]++
}

func (k *blocker) addBad(b *block, f int, vals []string, reason, key string) {
	k.add(b, f, vals)
	b.bad[f] = append(b.bad[f], pendingBad{k: b.rows[f], reason: reason, key: key})
}

// run formats the records [start, end) and the bad rows planned among them.
func (k *blocker) run(ctx context.Context, start, end int64) *block {
	g := k.g
	b := &block{start: start, end: end}
	b.tally.init(len(g.codes))
	plan := g.badProviders
	next := sort.Search(len(plan), func(q int) bool { return plan[q].at >= start })
	for i := start; i < end; i++ {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				b.err = err
				return b
			}
		}
		p := g.w.provider(k.r, i)
		k.provider(b, p)
		for ; next < len(plan) && plan[next].at == i; next++ {
			k.badRow(b, plan[next])
		}
	}
	return b
}

func (k *blocker) provider(b *block, p *provider) {
	g, w := k.g, k.g.w
	t := &b.tally
	b.changes = append(b.changes, p.changes...)
	if p.gen == w.gen && w.gen > 0 {
		b.changes = append(b.changes, pendingChange{ChangeNewProvider, Change{Key: p.npi, To: w.ref.states[p.state].Code}})
	}
	g.layout.fill(k.row, p)
	k.add(b, pfNPPES, k.row)
	if p.org {
		t.organizations++
	} else {
		t.individuals++
	}
	switch {
	case !p.active():
		t.deactivated++
	case p.reactivated != 0:
		t.reactivated++
	}
	if p.active() {
		if !p.org {
			t.byState[p.state]++
			for _, h := range p.taxonomies {
				c, ok := g.codeIndex[h.code]
				if !ok {
					continue
				}
				t.taxAny[c]++
				if h.primary {
					t.taxPrimary[c]++
				}
				t.taxStates[c][p.state]++
			}
		}
		for _, a := range p.secondary {
			k.add(b, pfLocations, plRow(p.npi, a))
			t.secondary++
		}
		for _, o := range p.otherNames {
			k.add(b, pfOtherNames, []string{p.npi, o.name, o.typeCode})
			t.otherNames++
		}
		for _, row := range w.endpointRows(k.rb, p) {
			k.add(b, pfEndpoints, row)
			t.endpoints++
		}
		if w.pecosEnrolled(p.index) {
			enr, rea := w.pecosRows(k.rb, p)
			for _, row := range enr {
				k.add(b, pfEnrollments, row)
				t.enrollments++
			}
			for _, row := range rea {
				k.add(b, pfReassignments, row)
				t.reassignments++
			}
		}
	}
	if p.excluded {
		k.add(b, pfLEIE, w.leieRow(k.rb, p))
		t.excludedWithNPI++
		if row, withNPI := w.samRow(k.rb, p); row != nil {
			k.add(b, pfSAM, samLayout(w.snapshot(), row))
			t.samRows++
			if withNPI {
				t.samWithNPI++
			}
		}
	}
	k.mips(b, p)
	// Payments of the program year, as of the base drop: a later move does not rewrite history.
	n := w.paymentRows(p.index)
	if n == 0 {
		return
	}
	base := k.base(p)
	if !base.active() {
		return
	}
	rows := w.paymentRowsFor(k.rb, base, 0, n, g.opYear, g.opPublished)
	for _, row := range rows {
		k.add(b, pfPayments, row)
	}
	t.paymentRows += int64(len(rows))
	if len(rows) > 0 {
		t.paymentRecipients++
	}
	// An older program year, in the older layout, for about a third of physicians.
	if base.prof == profMD && w.flag(p.index, flagPayments+100, 0.33) {
		for _, row := range w.paymentRowsFor(k.rb, base, 31, 1, g.opLegacyYear, g.opLegacyPublished) {
			k.add(b, pfLegacyPayments, legacyRow(row, k.legacyHeader))
			t.legacyPaymentRows++
		}
	}
}

// base is the provider as of the base drop, which history (payments, MIPS scores) follows.
func (k *blocker) base(p *provider) *provider {
	if k.g.w.gen == 0 {
		return p
	}
	return k.g.w.baseProvider(k.rb, p.index)
}

// mips writes a clinician's MIPS score rows of the latest and the older performance year.
func (k *blocker) mips(b *block, p *provider) {
	g, w, t := k.g, k.g.w, &b.tally
	if !w.mipsScored(p.index) {
		return
	}
	base := k.base(p)
	if !base.active() {
		return
	}
	t.mipsClinicians++
	for _, row := range w.mipsRows(k.rb, base, g.mipsLatest, false) {
		k.add(b, pfMIPS, mipsLayout(g.mipsLatest, row))
		t.mipsRows++
	}
	if w.flag(p.index, flagMIPS+100, shareMIPSOlder) {
		for _, row := range w.mipsRows(k.rb, base, g.mipsOlder, true) {
			k.add(b, pfMIPSOlder, mipsLayout(g.mipsOlder, row))
			t.mipsOlderRows++
		}
	}
}

// phantom returns a complete, valid provider record that appears in no file, distinct for each
// planned bad row q: bad rows are built from phantoms, so the NPI a bad row carries is not also
// carried by a good row.
func (g *generation) phantom(r *rng, q int, org bool) *provider {
	i := int64(phantomBase) + int64(q)*orgEvery // a multiple of orgEvery: an individual
	if org {
		i += orgEvery - 1
	}
	p := g.w.baseProvider(r, i)
	p.deactivated, p.reactivated, p.excluded = 0, 0, false
	return p
}

// badNPI is a valid NPI with its check digit changed.
func badNPI(npi string) string {
	return npi[:9] + string(byte('0'+(npi[9]-'0'+1)%10))
}

// badDateMDY and badDateCompact are dates that do not exist.
func badDateMDY(y int) string     { return fmt.Sprintf("02/30/%d", y) }
func badDateCompact(y int) string { return fmt.Sprintf("%d1345", y) }

func (k *blocker) badRow(b *block, pb plannedBad) {
	g, w, r := k.g, k.g.w, k.rb
	f := pb.file
	p := g.phantom(r, pb.q, f == pfOtherNames)
	if f == pfLEIE || f == pfSAM {
		p.excluded, p.excludedOn, p.leieAddr = true, w.snaps[0]-100, p.practice
	}
	var row []string
	key := p.npi
	switch f {
	case pfNPPES:
		g.layout.fill(k.row, p)
		row = append([]string(nil), k.row...)
	case pfLocations:
		row = plRow(p.npi, p.practice)
	case pfOtherNames:
		row = []string{p.npi, p.orgName, "3"}
	case pfEndpoints:
		row = make([]string, len(endpointHeader))
		row[0], row[1], row[2], row[3], row[4] = p.npi, "DIRECT", "Direct Messaging Address", "records@direct.example.org", "N"
	case pfLEIE:
		row = w.leieRow(r, p)
	case pfEnrollments:
		t := &indivTaxa[p.taxon]
		row = []string{p.npi, w.pacID(p.index), w.enrollmentID(p.index, 0, false, p.enumerated), t.pecosCode,
			"PRACTITIONER - " + t.pecosDesc, w.ref.states[p.state].Code, p.first, p.middle, p.last, ""}
	case pfReassignments:
		row = []string{w.enrollmentID(p.index, 0, false, p.enumerated), w.enrollmentID(p.index+1, 0, true, nppesEpoch)}
		key = row[0]
	case pfPayments:
		p.taxon, p.prof = 0, profMD // a cardiologist: always a covered recipient
		row = w.paymentRowsFor(r, p, 0, 1, g.opYear, g.opPublished)[0]
	case pfSAM:
		row = w.samRecord(r, p, true)
	case pfMIPS:
		row = w.mipsRows(r, p, g.mipsLatest, false)[0]
	default:
		panic(fmt.Sprintf("synth: no bad rows planned for provider file %d", f))
	}
	npiCol := map[int]int{pfNPPES: 0, pfLocations: 0, pfOtherNames: 0, pfLEIE: 7, pfEnrollments: 0, pfPayments: 6, pfEndpoints: 0,
		pfSAM: samColNPI, pfMIPS: mipsNPI}
	switch pb.reason {
	case BadNPICheckDigit:
		key = badNPI(key)
		row[npiCol[f]] = key
	case BadDate:
		y, _, _ := p.enumerated.civil()
		switch f {
		case pfNPPES:
			row[g.layout.col["Provider Enumeration Date"]] = badDateMDY(y)
		case pfLEIE:
			row[14] = badDateCompact(y)
		case pfPayments:
			row[42] = badDateMDY(g.opYear)
		case pfSAM:
			row[samColActive] = badDateMDY(y)
		}
	case BadColumnCount:
		row = row[:len(row)-1]
	}
	switch f {
	case pfSAM:
		row = samLayout(w.snapshot(), row)
	case pfMIPS:
		row = mipsLayout(g.mipsLatest, row)
	}
	k.addBad(b, f, row, pb.reason, key)
}

// providerPass derives and writes every provider record with g.workers goroutines formatting
// blocks and this one writing them in order.
func (g *generation) providerPass(ctx context.Context) error {
	w := g.w
	n := w.total()
	g.phase, g.phaseTotal = "providers", n
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	workers := max(1, g.workers)
	futures := make(chan chan *block, 2*workers)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(futures)
		sem := make(chan struct{}, workers)
		for start := int64(0); start < n; start += blockSize {
			fut := make(chan *block, 1)
			select {
			case futures <- fut:
			case <-ctx.Done():
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				fut <- &block{err: ctx.Err()}
				return
			}
			wg.Add(1)
			go func(start int64) {
				defer wg.Done()
				defer func() { <-sem }()
				fut <- g.newBlocker().run(ctx, start, min(start+blockSize, n))
			}(start)
		}
	}()
	for fut := range futures {
		var b *block
		select {
		case b = <-fut:
		case <-ctx.Done():
			return ctx.Err()
		}
		if b.err != nil {
			return b.err
		}
		for f := 0; f < numProviderFiles; f++ {
			if err := g.pf[f].writeBlock(b.buf[f], b.rows[f], b.bad[f]); err != nil {
				return err
			}
		}
		g.tally.add(&b.tally)
		for _, c := range b.changes {
			g.changes.add(c.kind, c.ch)
		}
		if g.progress != nil && time.Since(g.lastReport) >= 250*time.Millisecond {
			g.report(b.end, false)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r := newRNG()
	for k := int64(0); k < w.leieNoNPICount(); k++ {
		if err := g.pf[pfLEIE].writeRow(w.leieNoNPIRow(r, k)); err != nil {
			return err
		}
		g.excludedWithoutNPI++
	}
	if err := g.pf[pfSAM].writeBlank(); err != nil {
		return err
	}
	for k := int64(0); k < w.samOtherCount(); k++ {
		if err := g.pf[pfSAM].writeRow(samLayout(w.snapshot(), w.samOtherRow(r, k))); err != nil {
			return err
		}
		g.samOthers++
	}
	if err := g.pf[pfSAM].writeBlank(); err != nil {
		return err
	}
	g.report(n, true)
	return nil
}
