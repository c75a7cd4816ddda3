package evidence

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"providerdir/internal/logging"
	"providerdir/llm"
	"providerdir/mapping/study"
)

// The model's two tasks. It is told the whitelist, but nothing it answers is trusted: a proposed
// intent is validated like any other, and a phrasing is screened and checked number by number.

// intentPrompt asks for an intent as JSON over the registered values.
func intentPrompt() string {
	var slugs []string
	for _, sp := range study.Specialties() {
		slugs = append(slugs, sp.Study())
	}
	return "You map one question about U.S. healthcare provider supply to a JSON object with the keys " +
		`"dataset_slug" (one of: ` + strings.Join(slugs, ", ") + `), "kind" (one of: ` + strings.Join(Kinds, ", ") + `), ` +
		`"states" (an array of two-letter USPS codes of the 50 states and DC named in the question; empty for the nation), ` +
		`"county" (the county named in the question, or ""), "lowest" (true when the question asks for the lowest or fewest) and ` +
		`"by_count" (true when it asks about numbers of providers rather than density). Reply with the JSON object only. ` +
		"If the question is about anything else, reply {}."
}

// phrasePrompt asks for the facts rewritten, numbers copied as written.
const phrasePrompt = "You rewrite facts about U.S. healthcare provider supply as one or two plain sentences answering the question. " +
	"Use only the facts given. Copy every number exactly as it is written in the facts; write no other number, in digits or in words. " +
	"Every sentence states at least one of those numbers. Give no advice, no predictions and no links. Reply with the sentences only."

// proposeIntent asks the model for an intent and keeps it only if it passes the whitelist and
// names no county the question does not.
func (s *Service) proposeIntent(ctx context.Context, q question) (Intent, bool) {
	out, err := s.model.Complete(ctx, []llm.Message{{Role: "system", Content: intentPrompt()}, {Role: "user", Content: q.raw}})
	if err != nil {
		logging.Logger(ctx).Warn("evidence: the model proposed no intent", slog.Any("error", err))
		return Intent{}, false
	}
	in, ok := parseIntent(out)
	if !ok {
		return Intent{}, false
	}
	if _, err := in.validate(); err != nil {
		logging.Logger(ctx).Info("evidence: the model's intent is not whitelisted", slog.String("reason", err.Error()))
		return Intent{}, false
	}
	// The model may not invent a county, nor drop one: a county question answered as its state's
	// would lose its geo_widened flag and caveat.
	asked := takeCounty(slices.Clone(q.words))
	if in.County != "" && !strings.Contains(" "+q.norm+" ", " "+countyName(in.County)+" ") || asked != "" && in.County == "" {
		return Intent{}, false
	}
	return in, true
}

// jsonObject finds the outermost braces of a reply, which models often wrap in prose or fences.
var jsonObject = regexp.MustCompile(`(?s)\{.*\}`)

// parseIntent reads a proposed intent: one JSON object of the intent's fields and no others.
func parseIntent(out string) (Intent, bool) {
	raw := jsonObject.FindString(out)
	if raw == "" {
		return Intent{}, false
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	var in Intent
	if err := dec.Decode(&in); err != nil {
		return Intent{}, false
	}
	for i, c := range in.States {
		in.States[i] = strings.ToUpper(strings.TrimSpace(c))
	}
	return in, true
}

// phrase asks the model to rewrite the template answer and returns its text when it passes
// checkPhrasing and, for a county question answered with its state's figures, still says so;
// false keeps the template.
func (s *Service) phrase(ctx context.Context, q question, template string, items []Item, widened bool) (string, bool) {
	var facts strings.Builder
	facts.WriteString("Question: " + q.raw + "\nFacts:\n- " + template + "\n")
	for _, it := range items {
		facts.WriteString("- " + it.Claim + "\n")
	}
	out, err := s.model.Complete(ctx, []llm.Message{{Role: "system", Content: phrasePrompt}, {Role: "user", Content: facts.String()}})
	if err != nil {
		logging.Logger(ctx).Warn("evidence: the model did not phrase the answer", slog.Any("error", err))
		return "", false
	}
	text := strings.TrimSpace(out)
	reason := checkPhrasing(text, template, items)
	if reason == "" && widened && !strings.Contains(strings.ToLower(text), "county") {
		reason = "a county answer that does not say it is the state's"
	}
	if reason != "" {
		logging.Logger(ctx).Info("evidence: the model's phrasing was rejected", slog.String("reason", reason))
		return "", false
	}
	return text, true
}

// maxPhrasing bounds a phrased answer: two sentences of figures.
const maxPhrasing = 600

var (
	numberWords = []string{"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion", "half", "quarter", "quarters", "third", "thirds", "twice", "double", "triple", "percent", "dozen", "dozens"}
	markup      = regexp.MustCompile("(?i)<[a-z/!]|```|\\[[^\\]]*\\]\\(")
)

// checkPhrasing holds a model's text to what an answer may be: one or two sentences of plain
// text grounded in the evidence (llm.CheckGrounded: every sentence states the evidence's
// figures as it writes them, no other number, no address, link, instruction or hidden
// character), passing the question screening, with no number in words and naming no state the
// answer does not. It returns why the text is rejected, or "".
func checkPhrasing(text, template string, items []Item) string {
	if text == "" || utf8.RuneCountInString(text) > maxPhrasing || !utf8.ValidString(text) {
		return "empty or too long"
	}
	if markup.MatchString(text) {
		return "markup"
	}
	if n := len(llm.Sentences(text)); n == 0 || n > 2 {
		return "not one or two sentences"
	}
	var evidence strings.Builder
	evidence.WriteString(template)
	for _, it := range items {
		evidence.WriteString("\n" + it.Claim)
	}
	if err := llm.CheckGrounded(text, evidence.String()); err != nil {
		return "not grounded in the evidence: " + err.Error()
	}
	q := newQuestion(text)
	if code := screen(q); code != "" {
		return "screened: " + code
	}
	if hasAny(q.words, numberWords) {
		return "a number in words"
	}
	known := newQuestion(evidence.String()).words
	for name := range stateNames {
		p := strings.Fields(name)
		if len(phraseAt(q.words, p)) > 0 && len(phraseAt(known, p)) == 0 {
			return "a state the answer does not name"
		}
	}
	return ""
}
