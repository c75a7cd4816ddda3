// Package evidence owns the supply API's natural-language evidence query
// (docs/contracts/supply-api.md §4): POST /v1/evidence-query behind the bearer-key gate, and its
// unauthenticated demo POST /api/evidence-query/demo on the service host, limited per client
// address by the gate.
//
// A question goes through fixed steps, and no step lets text choose what is read:
//
//  1. The body is checked (readRequest): one JSON object, a query of 1 to 1,500 characters,
//     options.max_evidence_items from 1 to 20.
//  2. The question is screened (screen) before anything else reads it: prompt-injection
//     signatures, payment or claims questions, predictions, vendor comparisons and look-ups of
//     one provider are refused with HTTP 200, status "refusal" and the refusal's code.
//  3. A classifier maps it to an Intent of whitelisted values: a registered study, codes of the
//     51, a county of that state in the Census list, one of five kinds. The default classifier
//     is local and deterministic (classify). An optional language model may propose an intent
//     for a question the classifier could not read; the proposal is held to the same whitelist
//     (Intent.validate).
//  4. The figures are read by typed look-ups of the study the by-state endpoint serves
//     (supply.API.Study), and the answer is a template over them, each claim with its
//     evidence item.
//  5. With a model configured, the model may rephrase the answer; its text is screened like a
//     question, and any number in it that is not in the evidence rejects it for the template.
package evidence

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/internal/logging"
	"providerdir/llm"
	"providerdir/mapping/study"
	"providerdir/rest"
	"providerdir/rest/gate"
	"providerdir/rest/internal/records"
	"providerdir/rest/supply"
	"providerdir/store"
)

// Paths of the endpoints: PathQuery under /v1, PathDemo under /api.
const (
	PathQuery = "/evidence-query"
	PathDemo  = "/evidence-query/demo"
)

// Studies reads the figures of a registered specialty's study; *supply.API is the one that
// serves them on /v1/specialties/{code}/by-state, and its reads go through the same snapshot
// view and decoded-study cache, so an answer states exactly the figures by-state serves.
type Studies interface {
	// Study returns the study of a registered slug (code "" for the whole specialty), or
	// supply.ErrNoStudy when none is loaded.
	Study(ctx context.Context, slug, code string) (*study.Study, []study.Row, error)
	// StudyFreshness is meta.data_freshness of a response built on a study.
	StudyFreshness(ctx context.Context) ([]rest.DataFreshness, error)
	// MethodologyURL is the absolute URL of a study's methodology.
	MethodologyURL(dataset string) string
}

// Config configures a Service.
type Config struct {
	Store   store.Store
	Studies Studies
	// BaseURL is the public base URL (without /v1) absolute links are built from.
	BaseURL string
	// Model, when not nil, proposes intents for questions the local classifier cannot read and
	// phrases answers; nil answers from the classifier and the templates alone.
	Model llm.Completer
}

// Service answers evidence queries.
type Service struct {
	records *records.Reader
	studies Studies
	baseURL string
	model   llm.Completer
}

// New returns the service cfg describes.
func New(cfg Config) *Service {
	return &Service{records: records.New(cfg.Store), studies: cfg.Studies,
		baseURL: strings.TrimRight(cfg.BaseURL, "/"), model: cfg.Model}
}

// Routes registers POST /evidence-query on the supply API's /v1 router, behind its gate.
func (s *Service) Routes(r *mux.Router) {
	r.HandleFunc(PathQuery, s.handler(rest.WriteV1Error)).Methods(http.MethodPost)
}

// RegisterDemo registers POST /evidence-query/demo on the service host's /api router behind
// limit (gate.LimitIP(gate.EvidenceDemoPolicy)). It answers as the keyed endpoint does; its
// errors are in the service host's envelope, like the limiter's own refusal.
func (s *Service) RegisterDemo(r *mux.Router, limit func(http.Handler) http.Handler) {
	r.Handle(PathDemo, limit(s.handler(rest.WriteAPIError))).Methods(http.MethodPost)
}

// errorWriter writes an error in a surface's envelope.
type errorWriter func(w http.ResponseWriter, r *http.Request, status int, code, message string, details any)

// handler serves one evidence query: the body checked, the question answered or refused, the
// result in the supply API's data/meta envelope; errors go through writeError. On the demo only
// a question answered or refused counts against its limit: a rejected body or a failure is
// taken back (gate.Uncount).
func (s *Service) handler(writeError errorWriter) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		q, bad := readRequest(r)
		if bad != nil {
			gate.Uncount(w, r)
			writeError(w, r, bad.status, bad.code, bad.message, nil)
			return
		}
		res, fresh, methodURL, err := s.Answer(r.Context(), q.text, q.maxItems)
		if err != nil {
			gate.Uncount(w, r)
		}
		if errors.Is(err, supply.ErrNoStudy) {
			writeError(w, r, http.StatusNotFound, supply.CodeSpecialtyNotFound,
				"No supply study of the specialty asked about is loaded: the registry or the Census figures have not been ingested.", nil)
			return
		}
		if err != nil {
			logging.Logger(r.Context()).Error("evidence query", slog.Any("error", err))
			rest.WriteFailure(w, r, func(w http.ResponseWriter, r *http.Request, status int, code, message string) {
				writeError(w, r, status, code, message, nil)
			}, err)
			return
		}
		meta := rest.NewV1Meta(r, fresh, methodURL, s.baseURL+rest.PathLimitationsPage)
		meta.DocumentationURL = s.baseURL + "/v1/openapi.json"
		rest.WriteV1(w, r, http.StatusOK, res, meta)
	}
}

// Answer answers one question: a result with its evidence, or a refusal. It also returns the
// freshness of the sources the answer was read from (none for a refusal) and the methodology
// URL meta links to. An error is a failure to read the store, or supply.ErrNoStudy.
func (s *Service) Answer(ctx context.Context, text string, maxItems int) (Result, []rest.DataFreshness, string, error) {
	page := s.baseURL + rest.PathMethodologyPage
	q := newQuestion(text)
	in, sp, no := s.intentOf(ctx, q)
	if no != nil {
		return refused(no), nil, page, nil
	}
	st, _, err := s.studies.Study(ctx, sp.Slug, "")
	if err != nil {
		return Result{}, nil, "", err
	}
	fresh, err := s.studies.StudyFreshness(ctx)
	if err != nil {
		return Result{}, nil, "", err
	}
	method := s.studies.MethodologyURL(st.Dataset)
	b := &builder{in: in, st: st, label: terms[sp.Slug].label, method: method}
	if in.County != "" {
		c, ok, err := s.countyOf(ctx, in.States[0], in.County)
		if err != nil {
			return Result{}, nil, "", err
		}
		if !ok {
			return refused(refusal(RefuseClassificationFailed)), nil, page, nil
		}
		b.county = c.Name
		b.widened = fmt.Sprintf("The registry has no county of practice: %s (FIPS %s) is answered with the state-level figures of %s.",
			c.Name, c.FIPS, stateName(in.States[0]))
	}
	a, err := b.answer()
	if err != nil {
		return Result{}, nil, "", err
	}
	if s.model != nil {
		if text, ok := s.phrase(ctx, q, a.Summary, b.items, a.GeoWidened); ok {
			a.Summary = text
		}
	}
	items := b.items
	if len(items) > maxItems {
		items = items[:maxItems]
	}
	return Result{Status: StatusOK, Answer: a, Evidence: items}, fresh, method, nil
}

// intentOf reads a question into a whitelisted intent and its specialty, or a refusal: the
// screening first, then the local classifier, then, for a question the classifier could not
// read, the model's proposal, held to the same whitelist.
func (s *Service) intentOf(ctx context.Context, q question) (Intent, study.Specialty, *Refusal) {
	if code := screen(q); code != "" {
		return Intent{}, study.Specialty{}, refusal(code)
	}
	in, no := classify(q)
	if no != nil && no.unread() && s.model != nil {
		if proposed, ok := s.proposeIntent(ctx, q); ok {
			in, no = proposed, nil
		}
	}
	if no != nil {
		return Intent{}, study.Specialty{}, no
	}
	sp, err := in.validate()
	if err != nil { // classify and proposeIntent return valid intents only; validated again here
		return Intent{}, study.Specialty{}, refusal(RefuseClassificationFailed)
	}
	return in, sp, nil
}

// refused is the result of a refused question.
func refused(r *Refusal) Result {
	return Result{Status: StatusRefusal, Evidence: []Item{}, Refusal: r}
}
