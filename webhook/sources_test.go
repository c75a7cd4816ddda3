package webhook

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/carecompare"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/backends"
	"providerdir/testing/webhookreceiver"
)

// copyFile copies src to dst with the modification time mtime (files without a date in their
// name are dated by it).
func copyFile(t *testing.T, src, dst string, mtime time.Time, drop func(line string) bool) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out strings.Builder
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if drop == nil || !drop(sc.Text()) {
			out.WriteString(sc.Text() + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dst, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// firstEnrolled is the NPI of the first row of a PPEF enrollment file.
func firstEnrolled(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 {
		t.Fatalf("%s holds no enrollment", file)
	}
	return strings.SplitN(lines[1], ",", 2)[0]
}

// eventsOf decodes a subscription's deliveries of one event.
func eventsOf[T any](t *testing.T, st store.Store, subID, event string) []T {
	t.Helper()
	var out []T
	for _, d := range deliveriesOf(t, st, subID) {
		if d.Event == event {
			var b T
			mustJSON(t, d.Payload, &b)
			out = append(out, b)
		}
	}
	return out
}

// A drop of the PECOS family alone that ends a watched NPI's enrollment fires provider.changed
// naming cms_pecos_ppef with pecos_enrolled true -> false, delivered signed to a receiver on
// loopback; source.refreshed goes out for each PECOS dataset only when the drop's snapshot date
// moved.
func TestProviderChangedFromPECOSOnlyDrop(t *testing.T) {
	base := drops(t).Base
	for _, c := range []struct {
		name, date    string
		wantRefreshed bool
	}{
		{"new snapshot", "2025.07.01", true},
		{"same snapshot", "2025.04.01", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st, clk := backends.Embedded(t), webhookreceiver.NewClock()
			ingestDrop(t, st, base)
			if err := Fanout(ctx, st, clk.Now); err != nil {
				t.Fatal(err)
			}
			npi := firstEnrolled(t, filepath.Join(base, "PPEF_Enrollment_Extract_2025.04.01.csv"))
			rv := webhookreceiver.NewReceiver(t, signed, nil)
			sub := subscribe(t, st, rv, rv.URL, []string{EventProviderChanged, EventSourceRefreshed}, npi)

			pecos := t.TempDir()
			for _, name := range []string{"PPEF_Enrollment_Extract_", "PPEF_Reassignment_Extract_", "Hospital_Enrollments_"} {
				var drop func(string) bool
				if name == "PPEF_Enrollment_Extract_" {
					drop = func(line string) bool { return strings.HasPrefix(line, npi+",") }
				}
				copyFile(t, filepath.Join(base, name+"2025.04.01.csv"), filepath.Join(pecos, name+c.date+".csv"), time.Now(), drop)
			}
			ingestDrop(t, st, pecos)
			if err := Fanout(ctx, st, clk.Now); err != nil {
				t.Fatal(err)
			}

			changed := eventsOf[ProviderChanged](t, st, sub.ID, EventProviderChanged)
			if len(changed) != 1 {
				t.Fatalf("%d provider.changed, want 1: %+v", len(changed), changed)
			}
			pc := changed[0]
			var enrolled *FieldChange
			for _, src := range pc.Sources {
				if src.DatasetID == stored.PECOS.ID {
					if f, ok := src.Fields["pecos_enrolled"]; ok {
						enrolled = &f
					}
				}
			}
			if pc.NPI != npi || pc.Change != ChangeChanged || len(pc.Fields) != 0 || enrolled == nil ||
				string(enrolled.Old) != "true" || string(enrolled.New) != "false" {
				t.Errorf("provider.changed %+v", pc)
			}

			refreshed := eventsOf[SourceRefreshed](t, st, sub.ID, EventSourceRefreshed)
			var ids []string
			for _, r := range refreshed {
				ids = append(ids, r.DatasetID)
				if r.PreviousSnapshot == nil || *r.PreviousSnapshot == r.Snapshot || r.Deprecations == nil {
					t.Errorf("source.refreshed %+v", r)
				}
			}
			slices.Sort(ids)
			want := []string(nil)
			if c.wantRefreshed {
				want = []string{stored.PECOS.ID, stored.HospitalEnrollments.ID}
				slices.Sort(want)
			}
			if !slices.Equal(ids, want) {
				t.Errorf("source.refreshed for %v, want %v", ids, want)
			}
			checkBodies(t, st, deliveriesOf(t, st, sub.ID))

			startWorker(t, WorkerOptions{Store: st, Now: clk.Now})
			webhookreceiver.WaitFor(t, "the deliveries", func() bool { return len(rv.Requests()) == 1+len(want) })
			for _, got := range rv.Requests() {
				if !got.Verified {
					t.Errorf("unverified delivery %s", got.Body)
				}
				if got.Event == EventSourceRefreshed && !strings.Contains(string(got.Body), `"deprecations":[]`) {
					t.Errorf("source.refreshed without deprecations []: %s", got.Body)
				}
			}
		})
	}
}

// A Care Compare drop in which some facility types' files changed and the others are byte for
// byte the previous ones (re-dated by name or modification time) sends exactly one
// source.refreshed per changed dataset, each with its own snapshot, and none for the others.
func TestSourceRefreshedPerCareCompareDataset(t *testing.T) {
	d := drops(t)
	ctx := context.Background()
	st, clk := backends.Embedded(t), webhookreceiver.NewClock()
	ingestDrop(t, st, d.Base)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	sub := subscribe(t, st, nil, "https://192.0.2.1/a", []string{EventSourceRefreshed})

	later := time.Date(2025, 7, 8, 0, 0, 0, 0, time.UTC)
	cc := t.TempDir()
	copyFrom := func(dir, from, to string) {
		copyFile(t, filepath.Join(dir, from), filepath.Join(cc, to), later, nil)
	}
	// Unchanged: the hospital and ASC files (undated names, a later modification time), the
	// hospice files (renamed to the next month).
	copyFrom(d.Base, "Hospital_General_Information.csv", "Hospital_General_Information.csv")
	copyFrom(d.Base, "ASC_Facility.csv", "ASC_Facility.csv")
	copyFrom(d.Base, "Hospice_General-Information_Jun2025.csv", "Hospice_General-Information_Jul2025.csv")
	copyFrom(d.Base, "Provider_CAHPS_Hospice_Survey_Data_Jun2025.csv", "Provider_CAHPS_Hospice_Survey_Data_Jul2025.csv")
	// Changed: the next drop's nursing-home, home-health and dialysis files.
	copyFrom(d.Next, "NH_ProviderInfo_Jul2025.csv", "NH_ProviderInfo_Jul2025.csv")
	copyFrom(d.Next, "HH_Provider_Jul2025.csv", "HH_Provider_Jul2025.csv")
	copyFrom(d.Next, "DFC_FACILITY.csv", "DFC_FACILITY.csv")
	ingestDrop(t, st, cc)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}

	var want []string
	for _, q := range stored.QualityTypes {
		if slices.Contains([]carecompare.Kind{carecompare.NursingHome, carecompare.HomeHealth, carecompare.Dialysis}, mapping.QualityKind(q)) {
			want = append(want, q.Dataset.ID)
		}
	}
	slices.Sort(want)
	var got []string
	for _, r := range eventsOf[SourceRefreshed](t, st, sub.ID, EventSourceRefreshed) {
		got = append(got, r.DatasetID)
		if r.Snapshot != "2025-07-01" && r.Snapshot != "2025-07-08" || r.PreviousSnapshot == nil || *r.PreviousSnapshot == r.Snapshot {
			t.Errorf("source.refreshed %+v", r)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("source.refreshed for %v, want exactly %v", got, want)
	}
	checkBodies(t, st, deliveriesOf(t, st, sub.ID))
}

// deactivated lists the NPIs the next drop deactivates.
func deactivatedNPIs(t *testing.T) []string {
	var out []string
	for _, c := range drops(t).NextManifest.Changes.Deactivated {
		out = append(out, c.Key)
	}
	if len(out) == 0 {
		t.Fatal("the next drop deactivates no NPI")
	}
	return out
}

// A watched NPI deactivated by the next drop is provider.changed of the kind deactivated.
func TestProviderDeactivated(t *testing.T) {
	d := drops(t)
	ctx := context.Background()
	st, clk := backends.Embedded(t), webhookreceiver.NewClock()
	ingestDrop(t, st, d.Base)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	npi := deactivatedNPIs(t)[0]
	sub := subscribe(t, st, nil, "https://192.0.2.1/a", []string{EventProviderChanged}, npi)
	ingestDrop(t, st, d.Next)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	got := eventsOf[ProviderChanged](t, st, sub.ID, EventProviderChanged)
	if len(got) != 1 || got[0].Change != ChangeDeactivated || got[0].Fields["deactivation_date"].New == nil {
		b, _ := json.Marshal(got)
		t.Errorf("provider.changed %s, want one of change deactivated", b)
	}
}

// Two PECOS ingests that switch between fan-out passes, after one the last pass saw, each end
// the enrollment of one more watched NPI: the pass after them sends provider.changed for each
// NPI in the generation of the switch that ended it, and source.refreshed for each new PECOS
// snapshot in the order they switched, although the second switch's ingest collected what the
// first one replaced.
func TestFanoutAfterTwoSwitches(t *testing.T) {
	base := drops(t).Base
	ctx := context.Background()
	st, clk := backends.Embedded(t), webhookreceiver.NewClock()
	ingestDrop(t, st, base)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(base, "PPEF_Enrollment_Extract_2025.04.01.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var npis []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if npi := strings.SplitN(line, ",", 2)[0]; npi != "" && !slices.Contains(npis, npi) && len(npis) < 2 {
			npis = append(npis, npi)
		}
	}
	if len(npis) < 2 {
		t.Fatalf("the enrollment file holds %d NPIs, want 2", len(npis))
	}
	sub := subscribe(t, st, nil, "https://192.0.2.1/b", []string{EventProviderChanged, EventSourceRefreshed}, npis...)

	// ingestPECOS ingests the base drop's PECOS files dated date, without the enrollments of the
	// first n watched NPIs, and returns the manifests' generation it switched in.
	ingestPECOS := func(date string, n int) string {
		dir := t.TempDir()
		for _, name := range []string{"PPEF_Enrollment_Extract_", "PPEF_Reassignment_Extract_", "Hospital_Enrollments_"} {
			var drop func(string) bool
			if name == "PPEF_Enrollment_Extract_" {
				drop = func(line string) bool { return slices.Contains(npis[:n], strings.SplitN(line, ",", 2)[0]) }
			}
			copyFile(t, filepath.Join(base, name+"2025.04.01.csv"), filepath.Join(dir, name+date+".csv"), time.Now(), drop)
		}
		ingestDrop(t, st, dir)
		snap, err := store.Serving(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Generation(catalog.ManifestCollection)
	}
	ingestPECOS("2025.07.01", 0)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	gens := []string{ingestPECOS("2025.10.01", 1), ingestPECOS("2026.01.01", 2)}
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}

	changed := map[string]string{}
	var refreshed []string
	for _, d := range deliveriesOf(t, st, sub.ID) {
		switch d.Event {
		case EventProviderChanged:
			var pc ProviderChanged
			mustJSON(t, d.Payload, &pc)
			changed[pc.NPI] = d.EventID
		case EventSourceRefreshed:
			var sr SourceRefreshed
			mustJSON(t, d.Payload, &sr)
			if sr.DatasetID == stored.PECOS.ID {
				refreshed = append(refreshed, sr.Snapshot)
			}
		}
	}
	for i, npi := range npis {
		if !strings.HasPrefix(changed[npi], "evt_"+gens[i]+"_") {
			t.Errorf("provider.changed of %s: event %q, want one of generation %s", npi, changed[npi], gens[i])
		}
	}
	if len(changed) != len(npis) {
		t.Errorf("provider.changed for %v, want %v", changed, npis)
	}
	if want := []string{"2025-07-01", "2025-10-01", "2026-01-01"}; !slices.Equal(refreshed, want) {
		t.Errorf("source.refreshed for PECOS snapshots %v, want %v", refreshed, want)
	}
	checkBodies(t, st, deliveriesOf(t, st, sub.ID))
}
