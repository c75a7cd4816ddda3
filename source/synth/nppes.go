package synth

import (
	"bufio"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"providerdir/source/nppes"
)

// NPPES full dissemination files. The npidata header is copied byte for byte from the reference
// header of the release being imitated (330 columns) and values are placed by column name, so
// the generated file has exactly the published header.

// plHeader is the secondary practice location file header. The second address column has two
// spaces after the hyphen in the published file; the quirk is kept.
var plHeader = []string{
	"NPI",
	"Provider Secondary Practice Location Address- Address Line 1",
	"Provider Secondary Practice Location Address-  Address Line 2",
	"Provider Secondary Practice Location Address - City Name",
	"Provider Secondary Practice Location Address - State Name",
	"Provider Secondary Practice Location Address - Postal Code",
	"Provider Secondary Practice Location Address - Country Code (If outside U.S.)",
	"Provider Secondary Practice Location Address - Telephone Number",
	"Provider Secondary Practice Location Address - Telephone Extension",
	"Provider Practice Location Address - Fax Number",
}

var othernameHeader = []string{"NPI", "Provider Other Organization Name", "Provider Other Organization Name Type Code"}

// nppesLayout maps the npidata columns the generator fills to their positions, resolved once
// from the header so that filling a row is plain indexing.
type nppesLayout struct {
	line  string // the header line as published
	names []string
	col   map[string]int
	// Positions of the slot columns: taxonomy code, license, license state, primary switch.
	taxCode, taxLicense, taxState, taxSwitch [15]int
	otherID, otherType, otherState, otherIss [50]int
	group1                                   int
}

func readNPPESHeader(fsys fs.FS) (*nppesLayout, error) {
	path := nppes.HeaderFile
	f, err := fsys.Open(path)
	if err != nil {
		return nil, fmt.Errorf("synth: NPPES header: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("synth: %s: empty", path)
	}
	line := strings.TrimRight(sc.Text(), "\r")
	l := &nppesLayout{line: line, col: map[string]int{}}
	for _, n := range strings.Split(line, ",") {
		n = strings.Trim(n, `"`)
		l.col[n] = len(l.names)
		l.names = append(l.names, n)
	}
	if len(l.names) != 330 {
		return nil, fmt.Errorf("synth: %s: %d columns, want 330", path, len(l.names))
	}
	// Older releases say "Provider Gender Code"; either is filled.
	if _, ok := l.col["Provider Sex Code"]; !ok {
		if k, ok := l.col["Provider Gender Code"]; ok {
			l.col["Provider Sex Code"] = k
		}
	}
	need := func(name string) (int, error) {
		k, ok := l.col[name]
		if !ok {
			return 0, fmt.Errorf("synth: %s: no column %q", path, name)
		}
		return k, nil
	}
	for _, n := range nppesFilled {
		if _, err := need(n); err != nil {
			return nil, err
		}
	}
	for k := 0; k < 15; k++ {
		n := strconv.Itoa(k + 1)
		for _, c := range []struct {
			dst  *int
			name string
		}{{&l.taxCode[k], "Healthcare Provider Taxonomy Code_" + n}, {&l.taxLicense[k], "Provider License Number_" + n},
			{&l.taxState[k], "Provider License Number State Code_" + n}, {&l.taxSwitch[k], "Healthcare Provider Primary Taxonomy Switch_" + n}} {
			if *c.dst, err = need(c.name); err != nil {
				return nil, err
			}
		}
	}
	for k := 0; k < 50; k++ {
		n := strconv.Itoa(k + 1)
		for _, c := range []struct {
			dst  *int
			name string
		}{{&l.otherID[k], "Other Provider Identifier_" + n}, {&l.otherType[k], "Other Provider Identifier Type Code_" + n},
			{&l.otherState[k], "Other Provider Identifier State_" + n}, {&l.otherIss[k], "Other Provider Identifier Issuer_" + n}} {
			if *c.dst, err = need(c.name); err != nil {
				return nil, err
			}
		}
	}
	if l.group1, err = need("Healthcare Provider Taxonomy Group_1"); err != nil {
		return nil, err
	}
	return l, nil
}

// nppesFilled are the single columns fill writes by name.
var nppesFilled = []string{"NPI", "Entity Type Code", "Employer Identification Number (EIN)",
	"Provider Organization Name (Legal Business Name)", "Provider Last Name (Legal Name)", "Provider First Name",
	"Provider Middle Name", "Provider Name Prefix Text", "Provider Name Suffix Text", "Provider Credential Text",
	"Provider Other Organization Name", "Provider Other Organization Name Type Code", "Provider Other Last Name",
	"Provider Other First Name", "Provider Other Last Name Type Code",
	"Provider First Line Business Mailing Address", "Provider Second Line Business Mailing Address",
	"Provider Business Mailing Address City Name", "Provider Business Mailing Address State Name",
	"Provider Business Mailing Address Postal Code", "Provider Business Mailing Address Country Code (If outside U.S.)",
	"Provider Business Mailing Address Telephone Number", "Provider Business Mailing Address Fax Number",
	"Provider First Line Business Practice Location Address", "Provider Second Line Business Practice Location Address",
	"Provider Business Practice Location Address City Name", "Provider Business Practice Location Address State Name",
	"Provider Business Practice Location Address Postal Code",
	"Provider Business Practice Location Address Country Code (If outside U.S.)",
	"Provider Business Practice Location Address Telephone Number", "Provider Business Practice Location Address Fax Number",
	"Provider Enumeration Date", "Last Update Date", "NPI Deactivation Date", "NPI Reactivation Date", "Provider Sex Code",
	"Authorized Official Last Name", "Authorized Official First Name", "Authorized Official Middle Name",
	"Authorized Official Title or Position", "Authorized Official Telephone Number", "Is Sole Proprietor",
	"Is Organization Subpart", "Parent Organization LBN", "Parent Organization TIN",
	"Authorized Official Name Prefix Text", "Authorized Official Credential Text", "Certification Date"}

// fill fills row (len 330, reused) with p's record.
func (l *nppesLayout) fill(row []string, p *provider) {
	for k := range row {
		row[k] = ""
	}
	set := func(name, v string) { row[l.col[name]] = v }
	set("NPI", p.npi)
	if !p.active() {
		// Deactivated NPIs are published with the NPI and the deactivation date only.
		set("NPI Deactivation Date", p.deactivated.mdy())
		return
	}
	if p.org {
		set("Entity Type Code", "2")
		set("Employer Identification Number (EIN)", nppes.Unavailable)
		set("Provider Organization Name (Legal Business Name)", p.orgName)
		switch {
		case len(p.otherNames) > 0:
			set("Provider Other Organization Name", p.otherNames[0].name)
			set("Provider Other Organization Name Type Code", p.otherNames[0].typeCode)
		case p.npi[7]%3 == 0:
			// As the real file does for some organizations: a name withheld, with a type code.
			set("Provider Other Organization Name", nppes.Unavailable)
			set("Provider Other Organization Name Type Code", "6")
		}
		set("Authorized Official Last Name", p.aoLast)
		set("Authorized Official First Name", p.aoFirst)
		set("Authorized Official Middle Name", p.aoMiddle)
		set("Authorized Official Title or Position", p.aoTitle)
		set("Authorized Official Telephone Number", p.aoPhone)
		set("Authorized Official Name Prefix Text", p.aoPrefix)
		set("Authorized Official Credential Text", p.aoCredential)
		set("Is Organization Subpart", p.subpart)
		set("Parent Organization LBN", p.parentLBN)
		set("Parent Organization TIN", p.parentTIN)
	} else {
		set("Entity Type Code", "1")
		set("Provider Last Name (Legal Name)", p.last)
		set("Provider First Name", p.first)
		set("Provider Middle Name", p.middle)
		set("Provider Name Prefix Text", p.prefix)
		set("Provider Name Suffix Text", p.suffix)
		set("Provider Credential Text", p.credential)
		set("Provider Other Last Name", p.otherLast)
		set("Provider Other First Name", p.otherFirst)
		set("Provider Other Last Name Type Code", p.otherLastType)
		set("Provider Sex Code", p.sex)
		set("Is Sole Proprietor", p.soleProprietor)
	}
	set("Provider First Line Business Mailing Address", p.mail.line1)
	set("Provider Second Line Business Mailing Address", p.mail.line2)
	set("Provider Business Mailing Address City Name", p.mail.city)
	set("Provider Business Mailing Address State Name", p.mail.state)
	set("Provider Business Mailing Address Postal Code", p.mail.zip)
	set("Provider Business Mailing Address Country Code (If outside U.S.)", "US")
	set("Provider Business Mailing Address Telephone Number", p.mail.phone)
	set("Provider Business Mailing Address Fax Number", p.mail.fax)
	set("Provider First Line Business Practice Location Address", p.practice.line1)
	set("Provider Second Line Business Practice Location Address", p.practice.line2)
	set("Provider Business Practice Location Address City Name", p.practice.city)
	set("Provider Business Practice Location Address State Name", p.practice.state)
	set("Provider Business Practice Location Address Postal Code", p.practice.zip)
	set("Provider Business Practice Location Address Country Code (If outside U.S.)", "US")
	set("Provider Business Practice Location Address Telephone Number", p.practice.phone)
	set("Provider Business Practice Location Address Fax Number", p.practice.fax)
	set("Provider Enumeration Date", p.enumerated.mdy())
	set("Last Update Date", p.updated.mdy())
	if p.reactivated != 0 {
		set("NPI Deactivation Date", p.deactivated.mdy())
		set("NPI Reactivation Date", p.reactivated.mdy())
	}
	for k, t := range p.taxonomies {
		row[l.taxCode[k]] = t.code
		row[l.taxLicense[k]] = t.license
		row[l.taxState[k]] = t.licenseState
		row[l.taxSwitch[k]] = "N"
		if t.primary {
			row[l.taxSwitch[k]] = "Y"
		}
	}
	if p.taxonomyGroup != "" {
		row[l.group1] = p.taxonomyGroup
	}
	for k, o := range p.otherIDs {
		row[l.otherID[k]] = o.id
		row[l.otherType[k]] = o.typeCode
		row[l.otherState[k]] = o.state
		row[l.otherIss[k]] = o.issuer
	}
	set("Certification Date", p.certified.mdy())
}

func plRow(npi string, a address) []string {
	return []string{npi, a.line1, a.line2, a.city, a.state, a.zip, "US", a.phone, "", a.fax}
}

// nppesNames returns the three file names of a monthly full dissemination ending at end.
func nppesNames(end date) (npidata, pl, othername string) {
	span := nppesEpoch.compact() + "-" + end.compact()
	return "npidata_pfile_" + span + ".csv", "pl_pfile_" + span + ".csv", "othername_pfile_" + span + ".csv"
}
