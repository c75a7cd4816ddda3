package evidence

import (
	"strings"
	"testing"

	"providerdir/mapping/study"
)

// Every sentence of an answer agrees in number with the figure it states: one provider, one
// underserved state, are singular.
func TestAnswerWordingAgrees(t *testing.T) {
	one := study.Row{StateCode: "WY", StateName: "Wyoming", ActiveProviders: 1, Population: 100000, Per100k: 1, Rank: 51, Quartile: 1, Underserved: true}
	two := study.Row{StateCode: "OH", StateName: "Ohio", ActiveProviders: 2, Population: 100, Per100k: 2000, Rank: 1, Quartile: 4}
	st := &study.Study{Dataset: "dermatology-supply", Specialty: "dermatology", MethodologyVersion: "v2026.01.1",
		National: study.National{ActiveProviders: 1, Population: 100000, Per100k: 1}, Rows: []study.Row{two, one}}
	tests := []struct {
		name string
		in   Intent
		want []string
	}{
		{"a state's count", Intent{Kind: KindCount, States: []string{"WY"}}, []string{"Wyoming has 1 active dermatology provider in the registry", "Wyoming (WY) has 1 active dermatology provider per 100,000 residents."}},
		{"a state's density", Intent{Kind: KindDensity, States: []string{"WY"}}, []string{"Wyoming has 1 active dermatology provider per 100,000 residents (1 provider, 2024 population 100,000)"}},
		{"the national count", Intent{Kind: KindCount}, []string{"The registry lists 1 active dermatology provider in the 50 states and DC"}},
		{"the national density", Intent{Kind: KindDensity}, []string{"The 50 states and DC together have 1 active dermatology provider per 100,000 residents (1 provider,"}},
		{"the underserved states", Intent{Kind: KindUnderserved}, []string{"1 of the 50 states and DC is underserved for dermatology", "1 of the 50 states and DC has a dermatology density below"}},
		{"one state's flag", Intent{Kind: KindUnderserved, States: []string{"WY"}}, []string{"its density of 1 provider per 100,000 residents is below 3/4"}},
		{"a rank", Intent{Kind: KindRank, States: []string{"WY"}}, []string{"with 1 provider per 100,000 residents (quartile 1 of 4)"}},
		{"the lowest density", Intent{Kind: KindRank, Lowest: true}, []string{"Wyoming has the lowest dermatology density of the 50 states and DC, 1 provider per 100,000 residents."}},
		{"a comparison by count", Intent{Kind: KindCompare, ByCount: true, States: []string{"OH", "WY"}}, []string{"Ohio (OH) has 2 active dermatology providers in the registry.", "Wyoming (WY) has 1 active dermatology provider in the registry."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Dataset = st.Dataset
			b := &builder{in: tt.in, st: st, label: "dermatology"}
			a, err := b.answer()
			if err != nil {
				t.Fatal(err)
			}
			text := []string{a.Summary}
			for _, it := range b.items {
				text = append(text, it.Claim)
			}
			all := strings.Join(text, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("%q is not in\n%s", w, all)
				}
			}
			for _, bad := range []string{" 1 active dermatology providers", " 1 providers", "1 of the 50 states and DC are", "1 of the 50 states and DC have"} {
				if strings.Contains(" "+all, bad) {
					t.Errorf("%q in\n%s", bad, all)
				}
			}
		})
	}
}
