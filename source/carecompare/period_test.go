package carecompare

import (
	"strings"
	"testing"

	"providerdir/source"
	"providerdir/testing/readercheck"
)

// Each kind's period columns, in each style Care Compare prints them, with the blanks and
// markers a row states no period with; a date no form reads rejects the row.
func TestPeriodColumns(t *testing.T) {
	const (
		hospital = "Facility ID,Facility Name,State,Hospital overall rating"
		nh       = "CMS Certification Number (CCN),Provider Name,State,Overall Rating"
		hh       = "CMS Certification Number (CCN),Provider Name,State,Quality of patient care star rating"
		hospice  = "CMS Certification Number (CCN),Facility Name,State"
	)
	tests := []struct {
		name   string
		kind   Kind
		header string
		row    string
		period string // "<start>/<end>" of the dates read; "" when none
		reject string // the row error's reason, when the row is rejected
	}{
		{"start and end", Hospital, hospital + ",Start Date,End Date", "010001,A,AL,3,07/01/2021,06/30/2024", "2021-07-01/2024-06-30", ""},
		{"measure start and end", NursingHome, nh + ",Measure Start Date,Measure End Date", "015009,A,AL,4,2024-01-01,2024-12-31", "2024-01-01/2024-12-31", ""},
		{"date range", HomeHealth, hh + ",Measure Date Range", "017000,A,AL,3.5,04/01/2023 - 03/31/2024", "2023-04-01/2024-03-31", ""},
		{"measure period", Hospice, hospice + ",Measure Period", "011500,A,AL,01Jan2023-31Dec2023", "2023-01-01/2023-12-31", ""},
		{"blank", Hospital, hospital + ",Start Date,End Date", "010001,A,AL,3,,", "", ""},
		{"not available", NursingHome, nh + ",Measure Start Date,Measure End Date", "015009,A,AL,4,Not Available,Not Available", "", ""},
		{"range not available", HomeHealth, hh + ",Measure Date Range", "017000,A,AL,3.5,Not Available", "", ""},
		{"range N/A", HomeHealth, hh + ",Measure Date Range", "017000,A,AL,3.5,N/A", "", ""},
		{"end only", Hospital, hospital + ",Start Date,End Date", "010001,A,AL,3,-,06/30/2024", "/2024-06-30", ""},
		{"no period columns", Hospital, hospital, "010001,A,AL,3", "", ""},
		{"bad start", Hospital, hospital + ",Start Date,End Date", "010001,A,AL,3,sometime,06/30/2024", "", "bad date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(tt.kind, strings.NewReader(tt.header+"\n"+tt.row+"\n"), "f.csv")
			if err != nil {
				t.Fatal(err)
			}
			got, rep := readercheck.Drain(t, r)
			if tt.reject != "" {
				if len(got) != 0 || len(rep.Errors) != 1 || rep.Errors[0].Reason != tt.reject {
					t.Fatalf("read %+v, report %s; want the row rejected: %s", got, rep, tt.reject)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("read %d rows: %s", len(got), rep)
			}
			p := got[0].Period
			period := ""
			if !p.Start.IsZero() || !p.End.IsZero() {
				period = p.Start.String() + "/" + p.End.String()
			}
			if period != tt.period || p.Dated() != (tt.period != "" && !strings.HasPrefix(tt.period, "/")) {
				t.Errorf("period %q (%+v), want %q", period, p, tt.period)
			}
		})
	}
}

// A hospice's survey rows, gathered and joined to its general-information row: the summary
// star, every other row as a measure (score, or star where the row is a star row; null when
// suppressed), the span of the rows' periods.
func TestSurveyJoin(t *testing.T) {
	const file = "CMS Certification Number (CCN),Facility Name,State,Measure Code,Measure Name,Score,Star Rating,Footnote,Date\n" +
		"241508,A,MN,SUMMARY_STAR_RATING,Family caregiver survey rating,Not Applicable,4,,10/01/2022-09/30/2024\n" +
		"241508,A,MN,RATING_TBV,Rating,73,Not Applicable,,10/01/2022-09/30/2024\n" +
		"241508,A,MN,RECOMMEND_TBV,Recommend,81,Not Applicable,,10/01/2022-09/30/2024\n" +
		"241508,A,MN,EMO_REL_STAR_RATING,Emotional support star,Not Applicable,3,,10/01/2022-09/30/2024\n" +
		"241508,A,MN,TEAM_COMM_TBV,Communication,Not Available,Not Applicable,11,07/01/2022-06/30/2024\n"
	r, err := NewMeasureReader(strings.NewReader(file), "cahps.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, rep := readercheck.Drain(t, r)
	if len(rows) != 5 {
		t.Fatalf("read %d rows: %s", len(rows), rep)
	}
	var s Survey
	for _, m := range rows {
		s.Add(m)
	}
	f := Facility{Kind: Hospice, CCN: "241508"}
	f.Join(&s)
	if val(f.OverallStar) != "4" || f.Period.Start != (source.Date{Year: 2022, Month: 7, Day: 1}) || f.Period.End != (source.Date{Year: 2024, Month: 9, Day: 30}) {
		t.Errorf("joined %+v", f)
	}
	if got, want := measures(f), "RATING_TBV=73;RECOMMEND_TBV=81;EMO_REL_STAR_RATING=3;TEAM_COMM_TBV=nil[11];"; got != want {
		t.Errorf("measures %s, want %s", got, want)
	}
	// A row that states its own star and period keeps them.
	star := 2.0
	own := Facility{Kind: Hospice, CCN: "241508", OverallStar: &star, Period: parsePeriod("2023")}
	own.Join(&s)
	if val(own.OverallStar) != "2" || own.Period.Text != "2023" || len(own.Measures) != 4 {
		t.Errorf("joined onto a row with its own star and period: %+v", own)
	}
}
