package synth

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Open Payments general payments detail. The program-year file uses the PY2021+ column names
// (Covered_Recipient_*); a smaller file of an older program year uses the PY2013-2020 names
// (Physician_*), which carry no NPI: there a recipient is matched by name and address.

func opHeader() []string {
	h := []string{"Change_Type", "Covered_Recipient_Type", "Teaching_Hospital_CCN", "Teaching_Hospital_ID",
		"Teaching_Hospital_Name", "Covered_Recipient_Profile_ID", "Covered_Recipient_NPI", "Covered_Recipient_First_Name",
		"Covered_Recipient_Middle_Name", "Covered_Recipient_Last_Name", "Covered_Recipient_Name_Suffix",
		"Recipient_Primary_Business_Street_Address_Line1", "Recipient_Primary_Business_Street_Address_Line2",
		"Recipient_City", "Recipient_State", "Recipient_Zip_Code", "Recipient_Country", "Recipient_Province",
		"Recipient_Postal_Code"}
	for k := 1; k <= 6; k++ {
		h = append(h, "Covered_Recipient_Primary_Type_"+strconv.Itoa(k))
	}
	for k := 1; k <= 6; k++ {
		h = append(h, "Covered_Recipient_Specialty_"+strconv.Itoa(k))
	}
	for k := 1; k <= 5; k++ {
		h = append(h, "Covered_Recipient_License_State_code"+strconv.Itoa(k))
	}
	h = append(h, opPaymentColumns...)
	h = append(h, opProductColumns(true)...)
	return append(h, "Program_Year", "Payment_Publication_Date")
}

var opPaymentColumns = []string{"Submitting_Applicable_Manufacturer_or_Applicable_GPO_Name",
	"Applicable_Manufacturer_or_Applicable_GPO_Making_Payment_ID",
	"Applicable_Manufacturer_or_Applicable_GPO_Making_Payment_Name",
	"Applicable_Manufacturer_or_Applicable_GPO_Making_Payment_State",
	"Applicable_Manufacturer_or_Applicable_GPO_Making_Payment_Country",
	"Total_Amount_of_Payment_USDollars", "Date_of_Payment", "Number_of_Payments_Included_in_Total_Amount",
	"Form_of_Payment_or_Transfer_of_Value", "Nature_of_Payment_or_Transfer_of_Value", "City_of_Travel",
	"State_of_Travel", "Country_of_Travel", "Physician_Ownership_Indicator", "Third_Party_Payment_Recipient_Indicator",
	"Name_of_Third_Party_Entity_Receiving_Payment_or_Transfer_of_Value", "Charity_Indicator",
	"Third_Party_Equals_Covered_Recipient_Indicator", "Contextual_Information", "Delay_in_Publication_Indicator",
	"Record_ID", "Dispute_Status_for_Publication", "Related_Product_Indicator"}

// opProductColumns are the five product slots: interleaved per product (PY2021+) with a device
// PDI column, or grouped per field without it (older years).
func opProductColumns(current bool) []string {
	fields := []string{"Covered_or_Noncovered_Indicator_", "Indicate_Drug_or_Biological_or_Device_or_Medical_Supply_",
		"Product_Category_or_Therapeutic_Area_", "Name_of_Drug_or_Biological_or_Device_or_Medical_Supply_",
		"Associated_Drug_or_Biological_NDC_"}
	var out []string
	if current {
		fields = append(fields, "Associated_Device_or_Medical_Supply_PDI_")
		for k := 1; k <= 5; k++ {
			for _, f := range fields {
				out = append(out, f+strconv.Itoa(k))
			}
		}
		return out
	}
	for _, f := range fields {
		for k := 1; k <= 5; k++ {
			out = append(out, f+strconv.Itoa(k))
		}
	}
	return out
}

func opLegacyHeader() []string {
	h := []string{"Change_Type", "Covered_Recipient_Type", "Teaching_Hospital_CCN", "Teaching_Hospital_ID",
		"Teaching_Hospital_Name", "Physician_Profile_ID", "Physician_First_Name", "Physician_Middle_Name",
		"Physician_Last_Name", "Physician_Name_Suffix", "Recipient_Primary_Business_Street_Address_Line1",
		"Recipient_Primary_Business_Street_Address_Line2", "Recipient_City", "Recipient_State", "Recipient_Zip_Code",
		"Recipient_Country", "Recipient_Province", "Recipient_Postal_Code", "Physician_Primary_Type",
		"Physician_Specialty"}
	for k := 1; k <= 5; k++ {
		h = append(h, "Physician_License_State_code"+strconv.Itoa(k))
	}
	h = append(h, opPaymentColumns...)
	h = append(h, opProductColumns(false)...)
	return append(h, "Program_Year", "Payment_Publication_Date")
}

// programYear is the latest program year published by snap: each year's data comes out on
// June 30 of the following year.
func programYear(snap date) (year int, published date) {
	y, _, _ := snap.civil()
	py := y - 1
	if snap < ymd(y, time.June, 30) {
		py = y - 2
	}
	return py, ymd(py+1, time.June, 30)
}

func opName(year int, published date) string {
	return fmt.Sprintf("OP_DTL_GNRL_PGY%d_P%s.csv", year, strings.ReplaceAll(published.mdy(), "/", ""))
}

type nature struct {
	label, form string
	lo, hi      float64
	weight      float64
	travel      bool
}

var natures = []nature{
	{"Food and Beverage", "In-kind items and services", 8, 150, 60, false},
	{"Consulting Fee", "Cash or cash equivalent", 500, 6000, 7, false},
	{"Travel and Lodging", "In-kind items and services", 80, 2500, 9, true},
	{"Education", "In-kind items and services", 15, 600, 10, false},
	{"Compensation for services other than consulting, including serving as faculty or as a speaker at a venue other than a continuing education program", "Cash or cash equivalent", 1000, 5000, 8, false},
	{"Honoraria", "Cash or cash equivalent", 300, 3000, 2, false},
	{"Gift", "In-kind items and services", 10, 120, 4, false},
}

var natureDist = func() cumulative {
	w := make([]float64, len(natures))
	for k, n := range natures {
		w[k] = n.weight
	}
	return newCumulative(w)
}()

var therapeuticAreas = []string{"Cardiology", "Dermatology", "Gastroenterology", "Neurology", "Women's Health", "Oncology",
	"Ophthalmology", "Orthopedics", "ENT", "Pediatrics", "Psychiatry", "Urology", "Primary Care"}

type manufacturer struct{ id, name, state string }

// manufacturerOf returns the m-th synthetic manufacturer of the seed.
func (w *world) manufacturer(m int) manufacturer {
	h := hash(w.seed, streamPayments, 99, uint64(m))
	return manufacturer{
		id:    fmt.Sprintf("1000000%05d", 10000+m*37),
		name:  manufacturerStart[h%uint64(len(manufacturerStart))] + " " + manufacturerEnd[(h>>16)%uint64(len(manufacturerEnd))],
		state: w.ref.states[int((h>>32)%uint64(len(w.ref.states)))].Code,
	}
}

// profileID is the Open Payments covered-recipient profile id of record i.
func (w *world) profileID(i int64) string {
	return strconv.FormatUint(100_000+w.profPerm.at(uint64(i)), 10)
}

// opRecipient is what the payment rows say about their recipient.
type opRecipient struct {
	recipientType, primaryType, specialty string
	licenseStates                         []string
}

func (w *world) recipient(p *provider) (opRecipient, bool) {
	rt, pt, ok := openPaymentsType(p.prof, p.credential)
	if !ok {
		return opRecipient{}, false
	}
	n := w.ref.nucc[indivTaxa[p.taxon].code]
	spec := n.Grouping + "|" + n.Classification
	if n.Specialization != "" {
		spec += "|" + n.Specialization
	}
	var states []string
	for _, t := range p.taxonomies {
		if t.licenseState != "" && !contains(states, t.licenseState) && len(states) < 5 {
			states = append(states, t.licenseState)
		}
	}
	return opRecipient{rt, pt, spec, states}, true
}

// paymentRowsFor returns general payment rows from..from+n-1 of p for program year py; the row
// number keys the record id, so rows of different files never share one.
func (w *world) paymentRowsFor(r *rng, p *provider, from, n int, py int, published date) [][]string {
	rec, ok := w.recipient(p)
	if !ok {
		return nil
	}
	rows := make([][]string, 0, n)
	for k := from; k < from+n; k++ {
		r.reset(w.seed, streamPayments, p.index*32+int64(k))
		nat := natures[natureDist.draw(r)]
		m := w.manufacturer(r.IntN(40))
		amount := nat.lo + (nat.hi-nat.lo)*r.Float64()*r.Float64()
		day := r.between(ymd(py, 1, 1), ymd(py, 12, 31))
		row := []string{pick(r, []string{"UNCHANGED", "UNCHANGED", "UNCHANGED", "NEW", "CHANGED"}), rec.recipientType, "", "", "",
			w.profileID(p.index), p.npi, p.first, p.middle, p.last, p.suffix,
			p.practice.line1, p.practice.line2, p.practice.city, p.practice.state, p.practice.zip, "United States", "", "",
			rec.primaryType, "", "", "", "", "", rec.specialty, "", "", "", "", ""}
		for s := 0; s < 5; s++ {
			v := ""
			if s < len(rec.licenseStates) {
				v = rec.licenseStates[s]
			}
			row = append(row, v)
		}
		cityT, stateT, countryT := "", "", ""
		if nat.travel {
			s := w.ref.stateDist.draw(r)
			cityT, stateT, countryT = w.cityName(s, 0), w.ref.states[s].Code, "United States"
		}
		related := "Yes"
		if r.chance(0.15) {
			related = "No"
		}
		row = append(row, m.name, m.id, m.name, m.state, "United States", strconv.FormatFloat(amount, 'f', 2, 64), day.mdy(), "1",
			nat.form, nat.label, cityT, stateT, countryT, "No", "No Third Party Payment", "", "", "", "", "No",
			strconv.FormatInt(500_000_000+p.index*32+int64(k), 10), "No", related)
		for s := 0; s < 5; s++ {
			if s == 0 && related == "Yes" {
				area := pick(r, therapeuticAreas)
				if r.chance(0.7) {
					row = append(row, "Covered", "Drug", area, pick(r, drugNames), fmt.Sprintf("%05d-%03d-%02d", 10000+r.IntN(89999), r.IntN(1000), r.IntN(100)), "")
				} else {
					row = append(row, "Covered", "Device", area, pick(r, deviceNames), "", "")
				}
				continue
			}
			row = append(row, "", "", "", "", "", "")
		}
		rows = append(rows, append(row, strconv.Itoa(py), published.mdy()))
	}
	return rows
}

// legacyRow turns a current-layout row into the older Physician_* layout: no NPI, a single
// primary type and specialty, products grouped by field.
func legacyRow(cur []string, header []string) []string {
	out := make([]string, 0, len(header))
	out = append(out, cur[0:5]...)  // change type .. teaching hospital name
	out = append(out, cur[5])       // profile id
	out = append(out, cur[7:19]...) // names, address
	out = append(out, cur[19], cur[25])
	out = append(out, cur[31:36]...) // license states
	pay := 36
	out = append(out, cur[pay:pay+len(opPaymentColumns)]...)
	prod := pay + len(opPaymentColumns)
	for f := 0; f < 5; f++ {
		for k := 0; k < 5; k++ {
			out = append(out, cur[prod+k*6+f])
		}
	}
	return append(out, cur[len(cur)-2:]...)
}
