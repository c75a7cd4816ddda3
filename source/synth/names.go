package synth

// Synthetic name material. Given names are common ones; family names, cities, streets,
// organizations and manufacturers are built from neutral word parts, so no generated record
// reproduces a real person or business from the federal files.

var givenFemale = []string{
	"MARY", "PATRICIA", "JENNIFER", "LINDA", "ELIZABETH", "BARBARA", "SUSAN", "JESSICA", "SARAH",
	"KAREN", "LISA", "NANCY", "BETTY", "SANDRA", "MARGARET", "ASHLEY", "KIMBERLY", "EMILY", "DONNA",
	"MICHELLE", "CAROL", "AMANDA", "MELISSA", "DEBORAH", "STEPHANIE", "REBECCA", "LAURA", "HELEN",
	"SHARON", "CYNTHIA", "KATHLEEN", "AMY", "ANGELA", "ANNA", "RUTH", "BRENDA", "PAMELA", "NICOLE",
	"KATHERINE", "SAMANTHA", "CHRISTINE", "CATHERINE", "RACHEL", "MARIA", "PRIYA", "MEI", "FATIMA",
	"AISHA", "SOFIA", "ELENA", "GRACE", "HANNAH", "OLIVIA", "ANIKA", "YUKI", "LUCIA", "NADIA", "IRENE",
}

var givenMale = []string{
	"JAMES", "ROBERT", "JOHN", "MICHAEL", "DAVID", "WILLIAM", "RICHARD", "JOSEPH", "THOMAS",
	"CHRISTOPHER", "CHARLES", "DANIEL", "MATTHEW", "ANTHONY", "MARK", "DONALD", "STEVEN", "ANDREW",
	"PAUL", "JOSHUA", "KENNETH", "KEVIN", "BRIAN", "GEORGE", "TIMOTHY", "RONALD", "JASON", "EDWARD",
	"JEFFREY", "RYAN", "JACOB", "GARY", "NICHOLAS", "ERIC", "JONATHAN", "STEPHEN", "LARRY", "JUSTIN",
	"SCOTT", "BRANDON", "BENJAMIN", "SAMUEL", "RAJ", "WEI", "OMAR", "HIROSHI", "CARLOS", "LUIS",
	"AHMED", "IVAN", "MATEO", "KWAME", "ARJUN", "DMITRI", "TOMAS", "VICTOR", "HENRY", "PETER",
}

// Family names are a first part and an ending, e.g. ASHFORD, MERRIDALE, THORNWICK.
var familyStart = []string{
	"ASH", "BRAM", "CALD", "DUN", "EL", "FAIR", "GAR", "HAL", "KEN", "LANG", "MAR", "NOR", "OAK",
	"PEN", "QUIL", "ROS", "STAN", "THORN", "UND", "VAL", "WEST", "YAR", "AL", "BEL", "COR", "DEL",
	"ES", "FEN", "GRAN", "HOL", "IR", "JAN", "KOR", "LIN", "MOR", "NAV", "OR", "PAR", "RAV", "SAL",
	"TAR", "VEN", "WIN", "ZAL", "BAR", "CAS", "DOR", "MEL", "SOR", "TAL",
}

var familyEnd = []string{
	"BY", "CROFT", "DALE", "FIELD", "FORD", "HAM", "HOLT", "LEY", "MERE", "RIDGE", "TON", "WELL",
	"WICK", "WOOD", "STROM", "BERG", "AVA", "ENO", "ARES", "IDES", "OVA", "ESCU", "ANI", "OWSKI",
	"SEN", "MAN", "INGS", "WORTH", "LOW", "MONT",
}

var middleInitials = []string{"A", "B", "C", "D", "E", "F", "G", "H", "J", "K", "L", "M", "N", "P", "R", "S", "T", "W"}

var namePrefixes = []string{"DR.", "DR.", "DR.", "MR.", "MS.", "MRS."}
var nameSuffixes = []string{"JR.", "SR.", "II", "III"}

var cityStart = []string{
	"SPRING", "OAK", "MAPLE", "CEDAR", "RIVER", "LAKE", "FAIR", "GREEN", "PINE", "ELM", "CLEAR",
	"ROCK", "MILL", "GLEN", "ASH", "WOOD", "STONE", "BROOK", "HIGH", "NORTH", "SOUTH", "EAST",
	"WEST", "SILVER", "RED", "WHITE", "BLUE", "GOLD", "HARBOR", "MEADOW", "SUMMIT", "PRAIRIE",
}

var cityEnd = []string{
	"FIELD", "VILLE", "TON", "WOOD", "DALE", "PORT", "VIEW", "BROOK", "HAVEN", "FORD", "BURG",
	"RIDGE", "SIDE", " SPRINGS", " FALLS", " CITY", " HEIGHTS", " HILLS", " JUNCTION", " VALLEY",
}

var streetNames = []string{
	"MAIN", "OAK", "MAPLE", "CEDAR", "PARK", "WASHINGTON", "LAKE", "HILL", "WALNUT", "SPRING",
	"NORTH", "RIDGE", "CHURCH", "MILL", "RIVER", "UNION", "HIGHLAND", "FOREST", "MEADOW", "SUNSET",
	"CENTER", "COLLEGE", "ELM", "PINE", "HICKORY", "CHESTNUT", "WILLOW", "FRANKLIN", "MADISON",
	"JEFFERSON", "LINCOLN", "JACKSON", "MARKET", "BROAD", "HARBOR", "VALLEY", "CANYON", "PRAIRIE",
}

var streetTypes = []string{"ST", "AVE", "RD", "BLVD", "DR", "LN", "WAY", "PKWY", "CT", "PL"}

var suiteKinds = []string{"SUITE", "STE", "UNIT", "FLOOR", "BLDG"}

// Organization names: a place or family part, then a kind that fits the organization.
var orgPracticeKinds = []string{
	"FAMILY MEDICINE", "MEDICAL GROUP", "PHYSICIANS", "HEALTH PARTNERS", "CLINIC", "MEDICAL ASSOCIATES",
	"SPECIALTY CARE", "PRIMARY CARE", "HEALTH CENTER", "CARE ASSOCIATES", "WELLNESS CENTER",
}

var orgLegalSuffixes = []string{"LLC", "PC", "PLLC", "INC", "PA", "LLP", "CORP"}

var hospitalKinds = []string{"REGIONAL MEDICAL CENTER", "COMMUNITY HOSPITAL", "GENERAL HOSPITAL", "MEMORIAL HOSPITAL", "MEDICAL CENTER", "HEALTH SYSTEM HOSPITAL"}
var nursingHomeKinds = []string{"NURSING AND REHABILITATION CENTER", "CARE CENTER", "HEALTH AND REHABILITATION", "SKILLED NURSING FACILITY", "MANOR", "LIVING CENTER"}
var homeHealthKinds = []string{"HOME HEALTH", "HOME CARE SERVICES", "HOME HEALTH AGENCY", "VISITING NURSES"}
var hospiceKinds = []string{"HOSPICE", "HOSPICE AND PALLIATIVE CARE", "HOSPICE CARE", "COMFORT HOSPICE"}
var dialysisKinds = []string{"DIALYSIS", "KIDNEY CENTER", "DIALYSIS CENTER", "RENAL CARE"}
var ascKinds = []string{"SURGERY CENTER", "AMBULATORY SURGERY CENTER", "SURGICAL ARTS CENTER", "ENDOSCOPY CENTER", "EYE SURGERY CENTER"}

var officialTitles = []string{"CEO", "PRESIDENT", "ADMINISTRATOR", "OFFICE MANAGER", "CFO", "MANAGING MEMBER", "DIRECTOR", "OWNER", "COMPLIANCE OFFICER", "PRACTICE MANAGER"}

// Manufacturers paying in Open Payments: synthetic company names with stable 12-digit ids.
var manufacturerStart = []string{
	"NORTHWIND", "BLUE HERON", "CASCADE", "MERIDIAN", "SUMMIT", "ORION", "HALCYON", "VERITAS",
	"BRIGHTWATER", "IRONBRIDGE", "SILVERLEAF", "KESTREL", "AURORA", "GRANITE", "LUMEN", "TIDEWATER",
}

var manufacturerEnd = []string{
	"THERAPEUTICS, INC.", "PHARMACEUTICALS LLC", "MEDICAL DEVICES, INC.", "BIOSCIENCES CORP.",
	"SURGICAL, INC.", "DIAGNOSTICS LLC", "LIFE SCIENCES, INC.", "ORTHOPEDICS LLC",
}

var drugNames = []string{
	"CARDIVEX", "DERMAZOL", "GASTRINEL", "NEUROFEN-XR", "OBREVA", "ONCOLIX", "OPTHAVUE", "ORTHOFLEX",
	"OTOCLEAR", "PEDIAMUNE", "PSYCHORA", "UROVANT", "ZELTRIVA", "MAXIVENT", "TRELOXA", "VANTREX",
}

var deviceNames = []string{
	"ARCLINE STENT SYSTEM", "VISTALENS IOL", "KNEEFORM IMPLANT", "SINUCLEAR BALLOON", "DERMAPEN PRO",
	"SPINEBRIDGE CAGE", "CARDIOSENSE MONITOR", "UROFLOW CATHETER",
}
