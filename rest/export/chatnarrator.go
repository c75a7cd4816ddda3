package export

import (
	"context"
	"errors"
	"strings"

	"providerdir/llm"
	"providerdir/rest/dataset"
)

// ChatNarrator words narratives with a language model. The model sees only the template's draft
// and is asked to rephrase it; what it returns is checked like any other narrator's text
// (grounded in the draft, see Narrator), and text carrying markup or more than twice the
// draft's length is refused here, so a model can change the wording of a narrative but not
// its facts.
type ChatNarrator struct {
	Model llm.Completer
}

// narratorInstructions is the system message: rephrase, keep every number as written and one
// in every sentence, add nothing.
const narratorInstructions = "You rewrite a dataset summary for readers. Rephrase the text you are given in one or two " +
	"paragraphs of plain prose. Keep every number exactly as written, state at least one of them in every sentence, " +
	"and add no number, name, link or claim that the text does not contain. Answer with the rewritten text only."

// errNarrationRefused: the model's text carried something a narrative may not.
var errNarrationRefused = errors.New("export: the model's narrative carries markup or too much text")

// Narrate asks the model to rephrase draft.
func (n ChatNarrator) Narrate(ctx context.Context, _ *dataset.Figures, draft string) (string, error) {
	text, err := n.Model.Complete(ctx, []llm.Message{
		{Role: "system", Content: narratorInstructions},
		{Role: "user", Content: draft},
	})
	if err != nil {
		return "", err
	}
	text = strings.TrimSpace(text)
	if len(text) > 2*len(draft) || strings.ContainsAny(text, "<>`[]") {
		return "", errNarrationRefused
	}
	return text, nil
}
