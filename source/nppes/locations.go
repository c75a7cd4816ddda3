package nppes

import (
	"io"

	"providerdir/source"
)

// Location is one row of pl_pfile: a secondary practice location of an NPI.
type Location struct {
	NPI       string
	Address   Address
	Extension string // telephone extension
}

var (
	plSchema = source.NewSchema("NPPES pl_pfile").Placeholders(Unavailable)
	plNPI    = plSchema.Required("NPI")
	plPrefix = "Provider Secondary Practice Location Address"
	plCols   = addressCols{
		line1: plSchema.Required(plPrefix + "- Address Line 1"),
		// Published with two spaces after the dash; header matching collapses them.
		line2:   plSchema.Required(plPrefix + "-  Address Line 2"),
		city:    plSchema.Required(plPrefix + " - City Name"),
		state:   plSchema.Required(plPrefix + " - State Name"),
		postal:  plSchema.Required(plPrefix + " - Postal Code"),
		country: plSchema.Required(plPrefix + " - Country Code (If outside U.S.)"),
		phone:   plSchema.Required(plPrefix + " - Telephone Number"),
		fax:     plSchema.Required("Provider Practice Location Address - Fax Number"),
	}
	plExtension = plSchema.Required(plPrefix + " - Telephone Extension")
)

func decodeLocation(r *source.Row) (Location, bool) {
	return Location{NPI: r.NPI(plNPI), Address: plCols.read(r), Extension: r.Str(plExtension)}, true
}

// OpenLocations opens a pl_pfile.
func OpenLocations(path string, opts ...source.Option) (*source.Reader[Location], error) {
	return source.Open(path, plSchema, decodeLocation, opts...)
}

// NewLocationReader reads a pl_pfile from r, named name in reports.
func NewLocationReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Location], error) {
	return source.NewReader(r, name, plSchema, decodeLocation, opts...)
}

// OtherName is one row of othername_pfile: another name an organization NPI goes by.
type OtherName struct {
	NPI      string
	Name     string
	TypeCode string // NPPES other-name type: 3 doing business as, 4 former legal business name, 5 other
}

var (
	onSchema = source.NewSchema("NPPES othername_pfile").Placeholders(Unavailable)
	onNPI    = onSchema.Required("NPI")
	onName   = onSchema.Required("Provider Other Organization Name")
	onType   = onSchema.Required("Provider Other Organization Name Type Code")
)

func decodeOtherName(r *source.Row) (OtherName, bool) {
	return OtherName{NPI: r.NPI(onNPI), Name: r.Required(onName), TypeCode: r.Str(onType)}, true
}

// OpenOtherNames opens an othername_pfile.
func OpenOtherNames(path string, opts ...source.Option) (*source.Reader[OtherName], error) {
	return source.Open(path, onSchema, decodeOtherName, opts...)
}

// NewOtherNameReader reads an othername_pfile from r, named name in reports.
func NewOtherNameReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[OtherName], error) {
	return source.NewReader(r, name, onSchema, decodeOtherName, opts...)
}
