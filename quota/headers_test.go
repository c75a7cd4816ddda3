package quota

import (
	"net/http"
	"reflect"
	"testing"
	"time"
)

// The fields a decision writes, under the names Header.Get finds them by.
func TestSetHeaders(t *testing.T) {
	at := time.Date(2025, 6, 8, 12, 0, 0, 500_000_000, time.UTC)
	for _, tc := range []struct {
		name string
		d    Decision
		want http.Header
	}{
		{"two windows, the minute binding", Decision{Allowed: true, At: at, States: []State{
			{Window: RollingMinute(60), Remaining: 59, Used: 1, Reset: at.Add(61 * time.Second)},
			{Window: RollingDay(1000), Remaining: 999, Used: 1, Reset: at.Add(24*time.Hour + 60*time.Second)},
		}}, http.Header{
			"X-Ratelimit-Limit":     {"60"},
			"X-Ratelimit-Remaining": {"59"},
			"X-Ratelimit-Reset":     {"1749384062"},
			"Ratelimit-Policy":      {`"rolling-1m";q=60;w=60, "rolling-24h";q=1000;w=86400`},
			"Ratelimit":             {`"rolling-1m";r=59;t=61, "rolling-24h";r=999;t=86460`},
		}},
		{"one window", Decision{Allowed: true, At: at, States: []State{
			{Window: RollingHour(1000), Remaining: 0, Used: 1000, Reset: at.Add(10 * time.Second)},
		}}, http.Header{
			"X-Ratelimit-Limit":     {"1000"},
			"X-Ratelimit-Remaining": {"0"},
			"X-Ratelimit-Reset":     {"1749384011"},
			"Ratelimit-Policy":      {`"rolling-1h";q=1000;w=3600`},
			"Ratelimit":             {`"rolling-1h";r=0;t=10`},
		}},
	} {
		h := http.Header{}
		SetHeaders(h, tc.d)
		if !reflect.DeepEqual(h, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, h, tc.want)
		}
		if h.Get(HeaderRateLimitPolicy) == "" || h.Get(HeaderLimit) == "" {
			t.Errorf("%s: fields not found by their names", tc.name)
		}
	}
}

func BenchmarkSetHeaders(b *testing.B) {
	at := time.Now()
	d := Decision{Allowed: true, At: at, States: []State{
		{Window: RollingMinute(60), Remaining: 59, Used: 1, Reset: at.Add(time.Minute)},
		{Window: RollingDay(1000), Remaining: 999, Used: 1, Reset: at.Add(24 * time.Hour)},
	}}
	b.ReportAllocs()
	for b.Loop() {
		SetHeaders(http.Header{}, d)
	}
}
