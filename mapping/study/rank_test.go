package study

import (
	"fmt"
	"testing"
)

// four states of equal population make the arithmetic readable; the quartile rule is stated for
// any number of states.
func equalStates(n int, pop int64) []Row {
	out := make([]Row, n)
	for i := range out {
		out[i] = Row{StateCode: fmt.Sprintf("S%02d", i), StateName: fmt.Sprintf("State %d", i), Population: pop}
	}
	return out
}

func TestRankTiesQuartilesUnderserved(t *testing.T) {
	states := equalStates(4, 100000)
	tests := []struct {
		name      string
		counts    []int64
		filtered  bool
		rank      []int
		quartile  []int
		under     []bool
		natPer100 float64
	}{
		{"distinct", []int64{4, 3, 2, 1}, false, []int{1, 2, 3, 4}, []int{1, 2, 3, 4},
			// national 10/400000 = 2.5 per 100k; below 3/4 of it (1.875): only 1
			[]bool{false, false, false, true}, 2.5},
		{"tie shares the better rank", []int64{5, 3, 3, 1}, false, []int{1, 2, 2, 4}, []int{1, 3, 3, 4},
			[]bool{false, false, false, true}, 3},
		{"tie at the top", []int64{2, 2, 1, 1}, false, []int{1, 1, 3, 3}, []int{2, 2, 4, 4},
			[]bool{false, false, true, true}, 1.5},
		{"zeros fall in the last quartile", []int64{1, 0, 0, 0}, false, []int{1, 2, 2, 2}, []int{1, 4, 4, 4},
			[]bool{false, true, true, true}, 0.25},
		{"all zero: nobody underserved", []int64{0, 0, 0, 0}, false, []int{1, 1, 1, 1}, []int{4, 4, 4, 4},
			[]bool{false, false, false, false}, 0},
		{"filtered rows are never underserved", []int64{4, 3, 2, 0}, true, []int{1, 2, 3, 4}, []int{1, 2, 3, 4},
			[]bool{false, false, false, false}, 2.25},
		{"exactly at the threshold is not underserved", []int64{6, 3, 7, 0}, false, []int{2, 3, 1, 4}, []int{2, 3, 1, 4},
			// national 4 per 100k; 3/4 of it is exactly 3: the state with 3 is not below it
			[]bool{false, false, false, true}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counts := map[string]int64{}
			for i, c := range tt.counts {
				counts[states[i].StateCode] = c
			}
			rows, nat := Rank(counts, states, tt.filtered)
			if nat.Per100k != tt.natPer100 {
				t.Errorf("national per_100k %v, want %v", nat.Per100k, tt.natPer100)
			}
			for i, r := range rows {
				if r.Rank != tt.rank[i] || r.Quartile != tt.quartile[i] || r.Underserved != tt.under[i] {
					t.Errorf("%s: rank %d quartile %d underserved %v; want %d %d %v", r.StateCode,
						r.Rank, r.Quartile, r.Underserved, tt.rank[i], tt.quartile[i], tt.under[i])
				}
				if r.ActiveProviders != tt.counts[i] || r.Population != 100000 {
					t.Errorf("%s: counts %+v", r.StateCode, r)
				}
			}
		})
	}
}

// With 51 distinct densities the quartiles hold 12, 13, 13 and 13 states.
func TestQuartileCutOver51(t *testing.T) {
	states := equalStates(51, 1000000)
	counts := map[string]int64{}
	for i, s := range states {
		counts[s.StateCode] = int64(100 - i)
	}
	rows, _ := Rank(counts, states, false)
	sizes := map[int]int{}
	for _, r := range rows {
		sizes[r.Quartile]++
		want := (4*r.Rank + 50) / 51
		if r.Quartile != want {
			t.Errorf("%s rank %d quartile %d, want %d", r.StateCode, r.Rank, r.Quartile, want)
		}
	}
	if sizes[1] != 12 || sizes[2] != 13 || sizes[3] != 13 || sizes[4] != 13 {
		t.Fatalf("quartile sizes %v", sizes)
	}
}

// Ranks compare exact fractions: 1/3 and 2/6 tie although their decimal forms are rounded, and
// 1/300001 ranks below 1/300000 although both print as 0.3333.
func TestRankComparesExactRatios(t *testing.T) {
	states := []Row{{StateCode: "AA", StateName: "A", Population: 300000}, {StateCode: "BB", StateName: "B", Population: 600000}, {StateCode: "CC", StateName: "C", Population: 300001}}
	rows, _ := Rank(map[string]int64{"AA": 1, "BB": 2, "CC": 1}, states, false)
	got := []int{rows[0].Rank, rows[1].Rank, rows[2].Rank}
	if got[0] != 1 || got[1] != 1 || got[2] != 3 {
		t.Fatalf("ranks %v, want [1 1 3]", got)
	}
	if rows[0].Per100k != 0.3333 || rows[2].Per100k != 0.3333 {
		t.Fatalf("per_100k %v %v", rows[0].Per100k, rows[2].Per100k)
	}
}

func TestPer100k(t *testing.T) {
	tests := []struct {
		count, pop int64
		want       float64
	}{
		{0, 1000, 0}, {1, 0, 0}, {7, 700000, 1}, {1, 3, 33333.3333}, {2, 3, 66666.6667}, {17, 39431263, 0.0431},
	}
	for _, tt := range tests {
		if got := Per100k(tt.count, tt.pop); got != tt.want {
			t.Errorf("Per100k(%d, %d) = %v, want %v", tt.count, tt.pop, got, tt.want)
		}
	}
}
