package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"providerdir/smart"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// tokenPair returns the run's read by id with a SMART token, and the same request without the
// token, when the run has the former.
func tokenPair(scenarios []scenario) ([2]scenario, bool) {
	for _, sc := range scenarios {
		if sc.name == tokenReadName {
			return [2]scenario{get("the same read without a token", sc.path), sc}, true
		}
	}
	return [2]scenario{}, false
}

// tokenCost sets the read with a SMART token against the same read without one as throughput:
// o.tokenClients closed-loop clients each, in o.rounds rounds of a third of --duration a side,
// the two alternating so that other load on the machine falls on both alike. This is the
// bearer check's whole cost (the token's verification, the client's budget) as the requests
// per second it takes from a client that reads as fast as it can. It is measured twice: with
// each client address making addressReuse reads, as clients that read many times on one budget
// do, and with a new address for every read, each the first of a budget that has to be looked
// up and written. The token is fetched afresh before each round.
func tokenCost(c *http.Client, base string, pair [2]scenario, o options) (string, error) {
	round := o.duration / 3
	perRead := pair[1].header
	reused := pair[1]
	reused.header = func(i int) http.Header { return perRead(reusedAddresses + i/addressReuse) }
	runs := []struct {
		what string
		sc   scenario
	}{
		{fmt.Sprintf("each client address reading %d times", addressReuse), reused},
		{"a new client address for every read", pair[1]},
	}
	parts := make([]string, len(runs))
	var reusedShare float64
	for i, run := range runs {
		token, plain, err := tokenRounds(c, base, pair[0], run.sc, o.tokenClients, o.rounds, round)
		if err != nil {
			return "", err
		}
		t, p := sum(token), sum(plain)
		lo, hi := extremes(len(plain), func(i int) float64 { return token[i].rate() / plain[i].rate() })
		parts[i] = fmt.Sprintf("with %s, %.0f against %.0f reads/s, %.2f of it (rounds %.2f–%.2f)", run.what, t.rate(), p.rate(), t.rate()/p.rate(), lo, hi)
		if i == 0 {
			reusedShare = t.rate() / p.rate()
		}
	}
	return fmt.Sprintf("The read by id with a SMART token against the same read without one, %d closed-loop clients each, %d rounds of %s a side: %s. %s",
		o.tokenClients, o.rounds, round.Round(time.Millisecond), strings.Join(parts, "; "), tokenVerdict(reusedShare)), nil
}

// tokenReadTarget is the share of the plain read's throughput the service promises a read with
// a token, for a client that reads many times on one budget (tokenCost's first run).
const tokenReadTarget = 0.8

// tokenVerdict says whether share, the first run's, met tokenReadTarget.
func tokenVerdict(share float64) string {
	if share >= tokenReadTarget {
		return fmt.Sprintf("Target, %.1f of it with each address reading %d times: met.", tokenReadTarget, addressReuse)
	}
	return fmt.Sprintf("Target, %.1f of it with each address reading %d times: short by %.2f.", tokenReadTarget, addressReuse, tokenReadTarget-share)
}

// addressReuse is how many reads each client address makes in tokenCost's first run: well
// within the sandbox's 1,000 an hour per address.
const addressReuse = 100

// reusedAddresses is where the first run's address numbers start, past any the runs with an
// address per request reach, so that no address serves both.
const reusedAddresses = 1 << 23

// tokenRounds runs plain and token in turn, rounds of d each with clients closed-loop clients,
// token after a fresh prepare. The token requests keep counting from round to round, so an
// address numbered by request is not met again. A request that fails is an error.
func tokenRounds(c *http.Client, base string, plain, token scenario, clients, rounds int, d time.Duration) (tok, pl []tally, err error) {
	var from int64
	for range rounds {
		pl = append(pl, saturate(c, base, plain, clients, d, 0))
		if err := token.prepare(0); err != nil {
			return nil, nil, err
		}
		t := saturate(c, base, token, clients, d, from)
		from += t.ok + t.failed
		tok = append(tok, t)
	}
	if t, p := sum(tok), sum(pl); t.failed > 0 || p.failed > 0 {
		return nil, nil, fmt.Errorf("the read with a token failed %d times and without one %d times", t.failed, p.failed)
	}
	return tok, pl, nil
}

const tokenPath = "/fhir/token"

// tokenScenario asks the token endpoint for a token with the client's key. prepare signs the
// assertions beforehand, so that the client's signing is not timed as the server's latency; each
// request also names a client address of its own in X-Forwarded-For (10.0.0.0/8, in turn), so
// that the endpoint's per-address budget does not refuse the run.
func tokenScenario(keyFile, clientID, tokenURL string) (scenario, error) {
	key, err := readKey(keyFile)
	if err != nil {
		return scenario{}, err
	}
	var assertions []string
	return scenario{
		name:   "token (client_credentials)",
		target: &target{rate: targetRate},
		method: http.MethodPost,
		path:   tokenPath,
		header: func(i int) http.Header {
			return http.Header{
				"Content-Type":    {"application/x-www-form-urlencoded"},
				"X-Forwarded-For": {fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)},
			}
		},
		body: func(i int) string {
			return url.Values{
				"grant_type":            {smart.GrantClientCredentials},
				"client_assertion_type": {smart.AssertionTypeJWTBearer},
				"client_assertion":      {assertions[i%len(assertions)]},
				"scope":                 {"system/*.read"},
			}.Encode()
		},
		prepare: func(n int) error {
			assertions = assertions[:0]
			now := time.Now()
			for range n + 1 {
				a, err := smart.SignAssertion(clientID, tokenURL, key, now)
				if err != nil {
					return err
				}
				assertions = append(assertions, a)
			}
			return nil
		},
		metered: true,
	}, nil
}

// readKey reads the one private JWK of --smart-key.
func readKey(keyFile string) (jwk.Key, error) {
	set, err := jwk.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("read --smart-key: %w", err)
	}
	key, ok := set.Key(0)
	if priv, _ := jwk.IsPrivateKey(key); !ok || set.Len() != 1 || !priv {
		return nil, errors.New("--smart-key must hold exactly one private JWK")
	}
	return key, nil
}

// tokenReadName names the read by id with a token, which tokenCost sets against the same read
// without one.
const tokenReadName = "read Practitioner by id (SMART token)"

// tokenReadScenario reads by id the first Practitioner the client may read, with an access token
// of the client: the read scenario with the bearer check and the client's budget added. prepare
// gets a fresh token before each run (a run is far shorter than a token's life). The sandbox
// client is metered per client address, so each request names an address of its own in
// X-Forwarded-For (11.0.0.0/8, in turn), as the token scenario does.
func tokenReadScenario(c *http.Client, keyFile, clientID, base string) (scenario, error) {
	key, err := readKey(keyFile)
	if err != nil {
		return scenario{}, err
	}
	var auth string
	fetch := func(int) error {
		tr, err := smart.RequestToken(context.Background(), c, base+tokenPath, clientID, key, "system/*.read")
		if err != nil {
			return fmt.Errorf("get an access token: %w", err)
		}
		auth = "Bearer " + tr.AccessToken
		return nil
	}
	if err := fetch(0); err != nil {
		return scenario{}, err
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/fhir/Practitioner?_count=1", nil)
	req.Header.Set("Authorization", auth)
	var bundle struct {
		Entry []struct {
			Resource struct {
				ID string `json:"id"`
			} `json:"resource"`
		} `json:"entry"`
	}
	if err := doJSON(c, req, &bundle); err != nil {
		return scenario{}, fmt.Errorf("find a practitioner the client may read: %w", err)
	}
	if len(bundle.Entry) == 0 {
		return scenario{}, errors.New("the client may read no Practitioner")
	}
	sc := get(tokenReadName, "/fhir/Practitioner/"+bundle.Entry[0].Resource.ID)
	sc.header = func(i int) http.Header {
		return http.Header{"Authorization": {auth}, "X-Forwarded-For": {fmt.Sprintf("11.%d.%d.%d", i>>16&255, i>>8&255, i&255)}}
	}
	sc.prepare = fetch
	sc.metered = true
	return sc, nil
}

// verifyCeiling is the token endpoint's own ceiling: how many assertions signed with key the
// signature check alone verifies per second, on every core, in this process.
func verifyCeiling(key jwk.Key, d time.Duration) (float64, error) {
	pub, err := key.PublicKey()
	if err != nil {
		return 0, err
	}
	// The one algorithm the token endpoint accepts for the key's type.
	sa := jwa.RS384()
	if key.KeyType() == jwa.EC() {
		sa = jwa.ES384()
	}
	a, err := smart.SignAssertion(smart.SandboxClientID, "https://bench.invalid/fhir/token", key, time.Now())
	if err != nil {
		return 0, err
	}
	var n atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := jws.Verify([]byte(a), jws.WithKey(sa, pub)); err != nil {
					failed.Store(true)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return 0, errors.New("the signature check failed on an assertion just signed")
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
}
