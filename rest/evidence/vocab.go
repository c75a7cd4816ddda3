package evidence

import (
	"strings"

	"providerdir/ident"
	"providerdir/specialty"
)

// terms are the words people use for each registered specialty (package specialty holds the
// slugs and codes; this is only how questions name them). Label is the specialty's name in an
// answer's sentence. Every registered slug has an entry; a test holds the two lists together.
var terms = map[string]struct {
	label string
	words []string
}{
	"cardiology":       {"cardiology", []string{"cardiology", "cardiologist", "cardiologists", "cardiac", "heart doctor", "heart doctors", "heart specialist", "heart specialists", "cardiovascular", "cardio", "cardios", "cardiologic"}},
	"dermatology":      {"dermatology", []string{"dermatology", "dermatologist", "dermatologists", "skin doctor", "skin doctors", "skin specialist", "skin specialists", "derm", "derms", "derm docs", "dermatologic"}},
	"gastroenterology": {"gastroenterology", []string{"gastroenterology", "gastroenterologist", "gastroenterologists", "gi doctor", "gi doctors", "gi specialist", "gi specialists", "gastro", "gastros", "gi", "gi docs"}},
	"neurology":        {"neurology", []string{"neurology", "neurologist", "neurologists", "brain doctor", "brain doctors", "nerve specialist", "nerve specialists", "neuro", "neuros"}},
	"obgyn":            {"OB-GYN", []string{"obgyn", "obgyns", "ob gyn", "ob gyns", "obstetrics", "gynecology", "obstetrician", "obstetricians", "gynecologist", "gynecologists", "gynaecologist", "gynaecologists", "obstetrics and gynecology", "womens health doctors", "ob", "obs", "gyn", "gyns", "gyno", "gynos", "obstetrical"}},
	"oncology":         {"oncology", []string{"oncology", "oncologist", "oncologists", "cancer doctor", "cancer doctors", "cancer specialist", "cancer specialists", "medical oncology", "hematology oncology", "onc", "oncs", "hem onc", "heme onc", "hemonc"}},
	"ophthalmology":    {"ophthalmology", []string{"ophthalmology", "ophthalmologist", "ophthalmologists", "eye doctor", "eye doctors", "eye surgeon", "eye surgeons", "eye specialist", "eye specialists", "ophtho", "ophthos", "ophth", "opth", "ophthalmic"}},
	"orthopedic":       {"orthopedic surgery", []string{"orthopedic", "orthopedics", "orthopaedic", "orthopaedics", "orthopedist", "orthopedists", "orthopedic surgeon", "orthopedic surgeons", "orthopaedic surgeon", "orthopaedic surgeons", "bone doctor", "bone doctors", "ortho", "orthos", "orthopod", "orthopods"}},
	"otolaryngology":   {"otolaryngology (ENT)", []string{"otolaryngology", "otolaryngologist", "otolaryngologists", "ent", "ents", "ent doctor", "ent doctors", "ear nose and throat", "ear nose throat", "otorhinolaryngology", "otorhinolaryngologist", "otorhinolaryngologists"}},
	"pediatrics":       {"pediatrics", []string{"pediatrics", "pediatric", "pediatrician", "pediatricians", "paediatrics", "paediatrician", "paediatricians", "childrens doctor", "childrens doctors", "kids doctors", "peds", "paeds", "paediatric"}},
	"psychiatry":       {"psychiatry", []string{"psychiatry", "psychiatrist", "psychiatrists", "mental health doctor", "mental health doctors", "psych", "psychs", "psychiatric"}},
	"urology":          {"urology", []string{"urology", "urologist", "urologists", "uro", "uros", "urologic", "urological"}},
}

// specialtyNames lists the registered specialties by label, in slug order.
func specialtyNames() []string {
	var out []string
	for _, s := range specialty.Registered {
		out = append(out, terms[s.Slug].label)
	}
	return out
}

// notStudied are subjects people ask about that no registered study covers: other clinicians,
// facilities, services. A question about one of them is out of scope, not misunderstood.
var notStudied = []string{
	"dentist", "dentists", "dental", "chiropractor", "chiropractors", "chiropractic", "nurse", "nurses", "nursing",
	"nurse practitioner", "nurse practitioners", "physician assistant", "physician assistants", "psychologist",
	"psychologists", "therapist", "therapists", "counselor", "counselors", "pharmacist", "pharmacists", "pharmacy",
	"pharmacies", "family medicine", "family doctor", "family doctors", "primary care", "internal medicine", "internist",
	"internists", "radiologist", "radiologists", "radiology", "anesthesiologist", "anesthesiologists", "anesthesiology",
	"endocrinologist", "endocrinologists", "nephrologist", "nephrologists", "rheumatologist", "rheumatologists",
	"pulmonologist", "pulmonologists", "allergist", "allergists", "podiatrist", "podiatrists", "optometrist",
	"optometrists", "midwife", "midwives", "veterinarian", "veterinarians", "vet", "vets", "ambulance", "wait time", "wait times",
	"insurance", "medicaid", "star rating", "star ratings", "quality rating", "quality ratings", "mortality",
	"readmission", "readmissions", "vaccination", "vaccine", "covid", "weather", "recipe", "stock", "election",
}

// notHeld are facts about providers that no study holds: patient volumes, waits, ratings,
// insurance, telehealth, languages, demographics, certification, practice settings, places
// smaller than a county. A question about one of them is
// out of scope even when it names a specialty and a state: no neighbouring figure answers it.
var notHeld = []string{"patient", "patients", "patient volume", "visits", "procedures", "surgeries", "caseload",
	"caseloads", "workload", "busiest", "sees", "wait", "waits", "waiting", "waitlist", "waitlists", "wait list",
	"appointment", "appointments", "rating", "ratings", "rated", "star rating", "star ratings", "review", "reviews", "satisfaction",
	"outcomes", "insurance", "insurer", "insurers", "in network", "accept", "accepts", "accepting", "medicaid",
	"medicare", "telehealth", "telemedicine", "virtual visits", "video visits", "language", "languages", "speak",
	"speaks", "spanish", "bilingual", "women", "woman", "female", "females", "male", "males", "men", "gender",
	"race", "racial", "ethnicity", "hispanic", "latino", "age", "ages", "older", "younger", "years old", "retire",
	"retiring", "retirement", "board certified", "certified", "certification", "credentials", "office hours",
	"weekends", "private practice", "group practice", "solo practice", "in rural", "rural areas", "rural counties",
	"in urban", "urban areas", "in suburban", "city", "cities", "zip code", "zip codes", "neighborhood", "joke", "jokes", "poem", "riddle"}

// facilities are places of care: the studies count clinicians, not where they work, so a
// question about facilities is out of scope even when it names a specialty.
var facilities = []string{"hospital", "hospitals", "nursing home", "nursing homes", "dialysis", "hospice", "hospices",
	"home health", "clinic", "clinics", "urgent care", "emergency room", "emergency rooms", "beds", "unit", "units", "ward", "wards"}

// otherClinicians are clinicians no study counts, near in spelling to a registered specialty;
// named in a question, even beside a registered one, they put it out of scope.
var otherClinicians = []string{"hematologist", "hematologists", "virologist", "virologists", "audiologist",
	"audiologists", "neonatologist", "neonatologists", "pathologist", "pathologists", "neurosurgeon", "neurosurgeons",
	"dentist", "dentists", "nurse", "nurses", "psychologist", "psychologists", "radiologist", "radiologists",
	"nephrologist", "nephrologists", "chiropractor", "chiropractors"}

// adviceWords mark a question about one's own health, which supply figures do not answer.
var adviceWords = []string{"should i", "should my", "my child", "my son", "my daughter", "my rash", "my pain",
	"symptom", "symptoms", "diagnose", "diagnosis", "treatment for", "treat my", "medication", "medications",
	"prescribe", "is it serious", "what causes", "how do i", "how can i", "become a", "career", "careers", "residency",
	"medical school", "training to be"}

// territories are places the classifier knows to be outside the 51: the territories, and the
// countries, continents and provinces questions name. A question about one of them is out of
// scope; a place the classifier does not know is classification_failed, quoting it. A name
// after "new" is another place ("New Mexico", "New England").
var territories = []string{"puerto rico", "guam", "virgin islands", "american samoa", "northern mariana islands",
	"northern marianas", "marshall islands", "micronesia", "palau", "canada", "canadian", "mexico", "mexico city", "europe",
	"european", "asia", "africa", "south america", "latin america", "oceania", "uk", "united kingdom", "britain",
	"england", "scotland", "wales", "ireland", "france", "germany", "italy", "spain", "netherlands", "sweden", "norway",
	"india", "china", "japan", "korea", "brazil", "australia", "new zealand", "ontario", "quebec", "british columbia",
	"alberta", "manitoba", "saskatchewan", "nova scotia"}

// supplyWords mark a question about provider supply even when it names no specialty: such a
// question is misunderstood (classification_failed), not out of scope.
var supplyWords = []string{"doctor", "doctors", "physician", "physicians", "provider", "providers", "specialist",
	"specialists", "clinician", "clinicians", "practitioners", "density", "per capita", "per 100 000", "per 100000",
	"per 100k", "how many", "number of", "supply", "workforce", "shortage", "underserved", "rank", "ranking",
	"specialty", "specialties", "npis", "per resident", "per residents", "coverage"}

// nationWords ask for the 51 together: without them, a question that names no state is answered
// with the national figure only when it names no place at all.
var nationWords = []string{"national", "nationally", "nationwide", "nation", "nations", "country", "countrywide",
	"country wide", "us", "u s", "usa", "u s a", "united states", "america", "american", "all states",
	"every state", "each state", "50 states", "51", "the states", "federal", "overall"}

// stateNames maps the folded name of each of the 51 to its code, with the usual other names and
// abbreviations of the District and of the states named with a direction.
var stateNames = func() map[string]string {
	m := map[string]string{"washington dc": "DC", "washington d c": "DC", "d c": "DC", "dc": "DC", "the district": "DC",
		"n carolina": "NC", "s carolina": "SC", "n dakota": "ND", "s dakota": "SD", "w virginia": "WV", "cali": "CA"}
	for _, s := range ident.The51() {
		m[strings.ToLower(s.Name)] = s.Code
	}
	return m
}()
