package supply

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"providerdir/catalog"
	"providerdir/internal/logging"
	"providerdir/rest"
	"providerdir/rest/internal/records"
	"providerdir/store"
)

// UptimeTarget is the uptime the pilot and production tiers are offered
// (docs/contracts/resolver-api.md §8).
const UptimeTarget = "99.9%"

// Health is the data of GET /v1/health.
type Health struct {
	// Status is "ok", or "unavailable" when the store cannot be read (HTTP 503).
	Status       string         `json:"status"`
	UptimeTarget string         `json:"uptime_target"`
	Sources      []HealthSource `json:"sources"`
}

// HealthSource describes the serving snapshot of one source family.
type HealthSource struct {
	Family        string `json:"family"`
	Source        string `json:"source"`
	SourceURL     string `json:"source_url,omitempty"`
	DatasetID     string `json:"dataset_id"`
	Snapshot      string `json:"snapshot"`
	LastRefreshed string `json:"last_refreshed"`
	Rows          int64  `json:"rows"`
	RejectedRows  int64  `json:"rejected_rows"`
	Cadence       string `json:"cadence,omitempty"`
}

// healthTimeout bounds the store read: a monitor polling health must get an answer, and a store
// too slow for this is as good as down.
const healthTimeout = 5 * time.Second

// health serves GET /v1/health, public. It reports every loaded source family from the
// manifests. When the store cannot be read it still answers in the success shape, with status
// "unavailable" and 503, so monitors read one schema and alert on the status code.
func (a *API) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	w.Header().Set("Cache-Control", "no-store")

	ms, err := a.manifests(ctx)
	status, code := "ok", http.StatusOK
	if err != nil {
		logging.Logger(r.Context()).Error("health: read manifests", slog.Any("error", err))
		ms, status, code = nil, "unavailable", http.StatusServiceUnavailable
		if errors.Is(err, store.ErrUnavailable) {
			rest.SetRetryAfter(w)
		}
	}
	data := Health{Status: status, UptimeTarget: UptimeTarget, Sources: healthSources(ms)}
	meta := rest.NewV1Meta(r, freshness(ms), a.methodologyPage(), a.limitationsPage())
	rest.WriteV1(w, r, code, data, meta)
}

func healthSources(ms []catalog.Manifest) []HealthSource {
	out := make([]HealthSource, 0, len(ms))
	for _, m := range ms {
		out = append(out, HealthSource{
			Family:        m.Family,
			Source:        records.SourceName(m),
			SourceURL:     m.SourceURL,
			DatasetID:     m.DatasetID,
			Snapshot:      m.Snapshot,
			LastRefreshed: rest.Timestamp(m.FinishedAt),
			Rows:          m.Rows,
			RejectedRows:  m.Rejected,
			Cadence:       m.Cadence,
		})
	}
	return out
}
