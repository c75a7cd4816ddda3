package evidence

import (
	"regexp"
	"strings"
)

// Refusal codes (docs/contracts/supply-api.md §4, evidence query rule 4).
const (
	RefuseOutOfScope           = "out_of_scope"
	RefusePredictions          = "predictions"
	RefusePaymentData          = "payment_data"
	RefuseCompetitorCompare    = "competitor_compare"
	RefuseIndividualProvider   = "individual_provider_lookup"
	RefusePromptInjection      = "prompt_injection"
	RefuseClassificationFailed = "classification_failed"
)

// RefusalCodes lists every refusal code, in the contract's order.
var RefusalCodes = []string{RefuseOutOfScope, RefusePredictions, RefusePaymentData, RefuseCompetitorCompare,
	RefuseIndividualProvider, RefusePromptInjection, RefuseClassificationFailed}

// rule is one screening signature: a pattern over one reading of the question.
type rule struct {
	code string
	// on picks the reading the pattern is matched against.
	on func(question) string
	re *regexp.Regexp
}

func lower(q question) string   { return q.lower }
func norm(q question) string    { return q.norm }
func compact(q question) string { return q.compact }

// specialistWords are nouns of a clinician, for the signatures that refuse a search for one
// person; the study vocabulary adds the registered specialties' own nouns.
const specialistWords = `(doctors?|physicians?|providers?|clinicians?|specialists?|surgeons?|[a-z]+ologists?|pediatricians?|psychiatrists?|obstetricians?|gynecologists?|oncologists?|urologists?)`

// rules are checked in order and the first match decides, so the most serious reading of a
// question wins: an injection dressed as a payment question is refused as an injection.
var rules = []rule{
	// Instructions to the model, in plain words, in role markup, or spelled to slip past a
	// filter (spaced letters, digits for letters, zero-width characters, which newQuestion drops).
	{RefusePromptInjection, lower, regexp.MustCompile(`<\|[a-z_ ]*\|>|\[/?inst\]|<</?sys>>|###\s*(system|instruction|assistant|user)|(^|\n)\s*(system|assistant|developer)\s*:|` +
		`</?(system|instructions?|prompt)>`)},
	{RefusePromptInjection, norm, regexp.MustCompile(`\b(ignore|disregard|forget|override|bypass|overrule|skip|drop)\b( \w+){0,5} (instructions?|rules|prompts?|guidelines|directions|directives|constraints|polic(y|ies)|filters?|guardrails?|restrictions|programming|safeguards)\b|` +
		`\b(ignore|disregard|forget)( \w+){0,3} (above|previous|prior|earlier|preceding|everything)\b|` +
		`\b(system|hidden|initial|original|secret) (prompt|message|instructions?)\b|` +
		`\b(reveal|print|show|repeat|output|leak|display|dump|tell me|what (is|are)|translate|summari[sz]e|paraphrase|explain|describe|list|spell out|encode) (me )?(your|the) (\w+ )?(prompt|instructions|rules|configuration|guidelines)\b|` +
		`\byou are (now|no longer)\b|\bfrom now on\b|\bpretend (to be|you|that)\b|\bact as\b|\brole ?play\b|\bjailbr[eo]a?k\w*|\bdeveloper mode\b|\bdo anything now\b|\bdan mode\b|` +
		`\b(no|without) (restrictions|rules|filters|limits|guardrails)\b|\bunfiltered\b|\bnew instructions?\b|\binstead (say|answer|respond|output|print|write)\b|` +
		`\b(respond|answer|reply) only with\b|\bbase ?64\b|\brot ?13\b|\b(decode|execute|run|eval) (this|the following|following)\b|` +
		`\byour (\w+ ){0,2}(instructions|prompts?|rules|guidelines|configuration|programming|directives)\b|\boverrid(e|es|ing)\b|\bsudo\b|\b(admin|administrator|root|god) (mode|access|privileges?|rights)\b|` +
		`\b(print|dump|export|list|show) (all|every|the whole|the entire) (data|database|records|tables?|rows)\b`)},
	{RefusePromptInjection, compact, regexp.MustCompile(`ignor\w{0,3}(all|the|any|your)?(previous|prior|above|earlier)|disregard\w{0,3}(all|the|any|your)?(previous|prior|above|instructions)|` +
		`ignor\w{0,3}(all|your|the)?instructions|systemprompt|jailbreak|developermode|doanythingnow|newinstructions|youarenow`)},
	// Query syntax: a question never needs it, and the lookups take none.
	{RefusePromptInjection, lower, regexp.MustCompile(`;\s*(drop|delete|insert|update|truncate|alter|select|shutdown)\b|\bunion(\s+all)?\s+select\b|['"]\s*or\s+['"]?\d+['"]?\s*=\s*['"]?\d+|` +
		`\$(where|ne|gt|lt|regex|expr|function)\b|\{\s*"\$|\bdb\.\w+\.(find|drop|remove|delete)|<script\b|\bsleep\(\d+\)|--\s*$`)},

	// One person: an NPI, a doctor's name, personal details, or a search for practitioners.
	{RefuseIndividualProvider, lower, regexp.MustCompile(`\b\d{10}\b|\bnpi\s*(#|no\.?|number)?\s*:?\s*\d{6,}`)},
	{RefuseIndividualProvider, norm, regexp.MustCompile(`\b(dr|doctor) [a-z]+ [a-z]+\b( \w+){0,3} (phone|address|email|npi|license|office|practice|clinic|hospital)|` +
		`\bdr [a-z]+\b|\b(named|called) [a-z]+|\bwho is (the|a|an)?\s*` + specialistWords + `|` +
		`\b(e ?mails?|phones?|telephone|fax|cell|contact (info|information|details)) ((numbers?|address(es)?) )?(of|for)\b|` +
		`\b(phone numbers?|email address(es)?|e mail|home address(es)?|office address(es)?|mailing address(es)?|street address(es)?|license numbers?|date of birth|birthday|social security|ssn|malpractice|disciplinary|board actions?|personal (data|information|details))\b|` +
		`\bnear me\b|\bin my (area|town|city|neighborhood|zip)\b|\b(which|who|find|list|show)\b.* accepting new patients\b|\b(book|make|schedule) an appointment\b|` +
		`\b(names?|list|contact (info|information|details)|addresses) (of|for) (the |all |every |a )?(\w+ )?` + specialistWords + `|` +
		`\b(find|recommend|suggest|locate|give me) (me )?(a|an|the|some|good|best|top) (\w+ )?` + specialistWords + `|\b(best|top rated|highest rated|worst) ` + specialistWords + `\b|` +
		`\bspecific (doctor|physician|provider|clinician)\b|\bindividual (doctor|physician|provider|clinician)s?\b|` +
		`\b(reviews?|testimonials?|bedside manner)\b|\b(list|show|give me|every|each)\b( \w+){0,6} (npis?|npi numbers?|names|addresses|phone numbers?)\b|\b(best|top|highly|well|poorly|worst) (rated|reviewed)\b|` +
		`\bwhich (\w+ )?(doctor|physician|provider|clinician|specialist|surgeon|[a-z]+ologist|pediatrician|psychiatrist|obstetrician|gynecologist|orthopedist)\b( \w+){0,3} (has|is|does|accepts|takes|treats|works|practices|offers|sees|performs|handles|gets|writes|prescribes|earns|ranks)\b|` +
		// One of a kind, singular, somewhere: "which dermatologist in Ohio ...".
		`\bwhich (\w+ )?(doctor|physician|clinician|specialist|surgeon|[a-z]+ologist|pediatrician|psychiatrist|obstetrician|gynecologist|orthopedist) (in|near|at|around|from)\b`)},

	// Money paid to providers: payments, claims, billing, earnings.
	{RefusePaymentData, norm, regexp.MustCompile(`\b(payments?|paid|pay|pays|paying|reimburs\w*|claims?|billing|billed|bills?|salar(y|ies)|income|incomes|earn|earns|earned|earning|earnings|make a year|compensation|kickbacks?|spending|spend|spent|revenue|money|dollars?|usd|open payments|sunshine act|pharma gifts?|industry gifts?|consulting fees?|royalt(y|ies)|medicare (part [abd] )?(spending|utilization)|insurance (rates?|premiums?))\b|` +
		`\bhow much (does|do|did|will) (a|an|the)? ?\w+ (make|earn|get|bill)`)},
	{RefusePaymentData, lower, regexp.MustCompile(`\$\s?\d`)},

	// What care costs a patient: prices the studies do not hold.
	{RefuseOutOfScope, norm, regexp.MustCompile(`\b(prices?|pricing|priced|costs?|costly|expensive|cheap|cheapest|copays?|copayments?|co pays?|deductibles?|charges?|charged|charging|fees?|out of pocket)\b|` +
		`\bhow much (does|do|did|will|would) (\w+ ){0,4}(cost|charge)`)},

	// The future.
	{RefusePredictions, norm, regexp.MustCompile(`\b(predict\w*|forecast\w*|projection\w*|projected|extrapolat\w*|prognos\w*|future|foresee\w*|anticipat\w*|outlook)\b|` +
		`\bnext (year|decade|month|quarter|\d+ years|five years|ten years|few years)\b|\bin (the )?(coming|next) (years?|decade)\b|\bin (\d+|two|three|five|ten|twenty) years\b|` +
		`\bwill\b( \w+){0,8} (be|have|increase|decrease|grow|decline|rise|fall|change|shrink|double|drop|improve|worsen|need|lose|gain|get|reach)\b|` +
		`\b(going to|expected to|likely to|projected to|set to|bound to)\b|` +
		`\b(by|in|for|until) (20[3-9][0-9]|2[1-9][0-9]{2})\b|\b(shortage|surplus) (coming|ahead)\b`)},

	// Other vendors of provider data, by kind or by name.
	{RefuseCompetitorCompare, norm, regexp.MustCompile(`\b(competitors?|competition|competing|rivals?|vendors?|other (data )?(providers|suppliers|sources|services|apis|products|companies)|alternatives?)\b|` +
		`\b(definitive healthcare|definitivehc|iqvia|doximity|zocdoc|healthgrades|vitals com|webmd|komodo|ribbon health|turquoise health|trilliant|carejourney|symphony health|clarivate|optum|h1 insights|veeva|lexisnexis|medscape|google health|epic systems)\b|` +
		`\b(better|worse|more accurate|less accurate|cheaper|faster|more reliable|more complete) than (your|this|their|the other|other)\b|` +
		`\b(your|this) (api|data|dataset|service|product) (vs|versus|or|compared (to|with))\b`)},
}

// screen returns the refusal code of the first signature the question matches, or "".
func screen(q question) string {
	for _, r := range rules {
		if r.re.MatchString(r.on(q)) {
			return r.code
		}
	}
	return ""
}

// refusalMessages are the fixed explanations of each refusal: a refusal repeats nothing a model
// wrote, and nothing of the question but the unknown places unplacedRefusal quotes.
var refusalMessages = map[string]string{
	RefuseOutOfScope: "The evidence query answers questions about the supply of the twelve registered specialties " +
		"(active providers, density per 100,000 residents, rank and underserved states) in the 50 states and DC; this question is outside that. The studies hold no patient volumes, waits, ratings, prices, insurance, languages or demographics of providers.",
	RefusePredictions:        "The service reports the latest published figures only; it makes no predictions or projections.",
	RefusePaymentData:        "Payment, claims, billing and earnings questions are not answered by the evidence query.",
	RefuseCompetitorCompare:  "The evidence query does not compare data vendors or services.",
	RefuseIndividualProvider: "The evidence query answers aggregate supply questions; it does not look up individual providers or their personal data (GET /v1/providers/{npi} serves registry records by NPI).",
	RefusePromptInjection:    "The question contains instructions addressed to the system rather than a question about provider supply.",
	RefuseClassificationFailed: "The question could not be matched to a registered specialty, state and kind of figure (density, count, rank, state comparison, underserved states). " +
		"Name one of: " + strings.Join(specialtyNames(), ", ") + ".",
}

// unplacedRefusal is classification_failed for a question that names places the classifier
// cannot resolve. Its message quotes those places, and only them: words of the question, letters
// and digits only, a few words each.
func unplacedRefusal(places []string) *Refusal {
	quoted := make([]string, len(places))
	for i, p := range places {
		quoted[i] = `"` + p + `"`
	}
	return &Refusal{Code: RefuseClassificationFailed, Message: "These words of the question could not be placed among the 50 states and DC: " +
		strings.Join(quoted, ", ") + ". Name a state (or its two-letter code), or ask for the national figure (\"nationwide\")."}
}

// unread reports the refusal of a question the classifier could not read at all, the only one
// a language model may be asked to read instead: a question naming an unknown place keeps its
// refusal, since no figure of the 51 answers it.
func (r *Refusal) unread() bool {
	return r.Code == RefuseClassificationFailed && r.Message == refusalMessages[RefuseClassificationFailed]
}

// Refusal is the refusal object of a result.
type Refusal struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func refusal(code string) *Refusal {
	return &Refusal{Code: code, Message: refusalMessages[code]}
}
