// Package remote carries the store.Store interface over a local socket, so that operator
// commands (providerctl keys, clients, status, ingest) can work on an embedded store while
// providerd holds it: the embedded engine admits one process, and that process serves the others.
//
// The server side is an http.Handler mounted only on a unix socket whose file mode is 0600, in
// the directory beside the store: whoever may open the socket could open the store files
// themselves, so file permissions are the authentication, and nothing listens on the network.
// Calls are gob-encoded; sentinel errors keep their identity across the socket, so errors.Is
// works for callers exactly as on a local store.
package remote

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"providerdir/store"
)

// SocketPath is where the socket of the embedded store in dir lives: beside the directory, so
// the store engine never sees a foreign file among its own.
func SocketPath(dir string) string { return filepath.Clean(dir) + ".sock" }

// request holds the arguments of any call; each operation reads the fields it needs.
type request struct {
	Generation, Collection, ID, Kind, After, Name string
	IDs                                           []string
	Load                                          string // a bulk load's id
	Docs                                          []store.Document
	Query                                         store.Query
	Record                                        store.Record
	Version, Delta                                int64
	ExpiresAt                                     time.Time
	Limit                                         int
}

// response holds the results of any call, and its error as a kind plus text.
type response struct {
	ErrKind, Err string
	Doc          store.Document
	Page         store.Page
	Count        int64
	Generations  []string
	Record       store.Record
	Records      []store.Record
	Load         string
}

// sentinels maps error kinds to the store's sentinel errors, both ways.
var sentinels = map[string]error{
	"not_found": store.ErrNotFound,
	"conflict":  store.ErrConflict,
	"invalid":   store.ErrInvalid,
	"closed":    store.ErrClosed,
	// The served store's backend could not be reached.
	"unavailable": store.ErrUnavailable,
	// A served store that cannot bulk-load; the caller falls back to Put.
	"unsupported": errors.ErrUnsupported,
}

func encodeErr(err error, r *response) {
	if err == nil {
		return
	}
	r.Err = err.Error()
	for kind, s := range sentinels {
		if errors.Is(err, s) {
			r.ErrKind = kind
			return
		}
	}
	r.ErrKind = "other"
}

func decodeErr(r response) error {
	if r.ErrKind == "" {
		return nil
	}
	if s, ok := sentinels[r.ErrKind]; ok {
		return fmt.Errorf("%w (via %s)", s, stripSentinel(r.Err, s))
	}
	return errors.New(r.Err)
}

// stripSentinel keeps the detail of a wrapped sentinel's message for the error text.
func stripSentinel(msg string, s error) string {
	if msg == s.Error() {
		return "the serving process"
	}
	return msg
}

// Handler serves st to remote clients.
func Handler(st store.Store) http.Handler {
	mux := http.NewServeMux()
	op := func(name string, f func(ctx context.Context, q request, r *response) error) {
		mux.HandleFunc("POST /store/"+name, func(w http.ResponseWriter, hr *http.Request) {
			var q request
			var r response
			if err := gob.NewDecoder(hr.Body).Decode(&q); err != nil {
				http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
				return
			}
			encodeErr(f(hr.Context(), q, &r), &r)
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(&r); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/x-gob")
			_, _ = w.Write(buf.Bytes())
		})
	}
	op("put", func(ctx context.Context, q request, _ *response) error {
		return st.Put(ctx, q.Generation, q.Collection, q.Docs)
	})
	op("get", func(ctx context.Context, q request, r *response) (err error) {
		r.Doc, err = st.Get(ctx, q.Generation, q.Collection, q.ID)
		return err
	})
	op("get_many", func(ctx context.Context, q request, r *response) (err error) {
		r.Page.Docs, err = st.GetMany(ctx, q.Generation, q.Collection, q.IDs, nil)
		return err
	})
	op("get_bodies", func(ctx context.Context, q request, r *response) (err error) {
		r.Page.Docs, err = st.GetBodies(ctx, q.Generation, q.Collection, q.IDs, nil)
		return err
	})
	op("find", func(ctx context.Context, q request, r *response) (err error) {
		r.Page, err = st.Find(ctx, q.Query)
		return err
	})
	op("count", func(ctx context.Context, q request, r *response) (err error) {
		r.Count, err = st.Count(ctx, q.Query)
		return err
	})
	op("generations", func(ctx context.Context, _ request, r *response) (err error) {
		r.Generations, err = st.Generations(ctx)
		return err
	})
	op("drop", func(ctx context.Context, q request, _ *response) error {
		return st.DropGeneration(ctx, q.Generation)
	})
	op("getrecord", func(ctx context.Context, q request, r *response) (err error) {
		r.Record, err = st.GetRecord(ctx, q.Kind, q.ID)
		return err
	})
	op("putrecord", func(ctx context.Context, q request, r *response) (err error) {
		r.Record, err = st.PutRecord(ctx, q.Record)
		return err
	})
	op("deleterecord", func(ctx context.Context, q request, _ *response) error {
		return st.DeleteRecord(ctx, q.Kind, q.ID, q.Version)
	})
	op("listrecords", func(ctx context.Context, q request, r *response) (err error) {
		r.Records, err = st.ListRecords(ctx, q.Kind, q.After, q.Limit)
		return err
	})
	op("incr", func(ctx context.Context, q request, r *response) (err error) {
		r.Count, err = st.Incr(ctx, q.Name, q.Delta, q.ExpiresAt)
		return err
	})
	loads := newLoadTable(st, loadIdle)
	op("load", func(ctx context.Context, q request, r *response) (err error) {
		r.Load, err = loads.start(ctx, q.Generation, q.Collection)
		return err
	})
	op("loadadd", func(ctx context.Context, q request, _ *response) error {
		return loads.with(q.Load, false, func(ld store.Loading) error { return ld.Add(ctx, q.Docs) })
	})
	op("loadcommit", func(ctx context.Context, q request, _ *response) error {
		return loads.with(q.Load, true, func(ld store.Loading) error { return ld.Commit(ctx) })
	})
	op("loadabort", func(_ context.Context, q request, _ *response) error {
		return loads.with(q.Load, true, func(ld store.Loading) error { ld.Abort(); return nil })
	})
	return mux
}

// Listen opens the unix socket at path, readable and writable by its owner only. A socket left
// behind by a process that died is replaced; one a live process answers on is an error.
func Listen(path string) (net.Listener, error) {
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("remote: a process already serves %s", path)
	}
	_ = os.Remove(path)
	old := umask(0o177)
	ln, err := net.Listen("unix", path)
	umask(old)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// Client is a store.Store served by another process, and a store.Loader when that store is one.
type Client struct {
	path   string
	http   *http.Client
	closed atomic.Bool
}

// Dial returns a client of the store served at the socket path; it checks the server answers.
func Dial(ctx context.Context, path string) (*Client, error) {
	c := &Client{path: path, http: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}}
	if _, err := c.Generations(ctx); err != nil {
		return nil, fmt.Errorf("remote: no store served at %s: %w", path, err)
	}
	return c, nil
}

func (c *Client) call(ctx context.Context, op string, q request) (response, error) {
	if c.closed.Load() {
		return response{}, store.ErrClosed
	}
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(&q); err != nil {
		return response{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://store/store/"+op, &body)
	if err != nil {
		return response{}, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("remote %s: %w", op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return response{}, fmt.Errorf("remote %s: %s", op, resp.Status)
	}
	var r response
	if err := gob.NewDecoder(resp.Body).Decode(&r); err != nil {
		return response{}, fmt.Errorf("remote %s: %w", op, err)
	}
	return r, decodeErr(r)
}

func (c *Client) Put(ctx context.Context, gen, coll string, docs []store.Document) error {
	_, err := c.call(ctx, "put", request{Generation: gen, Collection: coll, Docs: docs})
	return err
}

func (c *Client) Get(ctx context.Context, gen, coll, id string) (store.Document, error) {
	r, err := c.call(ctx, "get", request{Generation: gen, Collection: coll, ID: id})
	return r.Doc, err
}

func (c *Client) GetMany(ctx context.Context, gen, coll string, ids []string, _ *store.Arena) ([]store.Document, error) {
	r, err := c.call(ctx, "get_many", request{Generation: gen, Collection: coll, IDs: ids})
	return r.Page.Docs, err
}

func (c *Client) GetBodies(ctx context.Context, gen, coll string, ids []string, _ *store.Arena) ([]store.Document, error) {
	r, err := c.call(ctx, "get_bodies", request{Generation: gen, Collection: coll, IDs: ids})
	return r.Page.Docs, err
}

func (c *Client) Find(ctx context.Context, q store.Query) (store.Page, error) {
	r, err := c.call(ctx, "find", request{Query: q})
	return r.Page, err
}

func (c *Client) Count(ctx context.Context, q store.Query) (int64, error) {
	r, err := c.call(ctx, "count", request{Query: q})
	return r.Count, err
}

func (c *Client) Generations(ctx context.Context) ([]string, error) {
	r, err := c.call(ctx, "generations", request{})
	return r.Generations, err
}

func (c *Client) DropGeneration(ctx context.Context, gen string) error {
	_, err := c.call(ctx, "drop", request{Generation: gen})
	return err
}

func (c *Client) GetRecord(ctx context.Context, kind, id string) (store.Record, error) {
	r, err := c.call(ctx, "getrecord", request{Kind: kind, ID: id})
	return r.Record, err
}

func (c *Client) PutRecord(ctx context.Context, rec store.Record) (store.Record, error) {
	r, err := c.call(ctx, "putrecord", request{Record: rec})
	return r.Record, err
}

func (c *Client) DeleteRecord(ctx context.Context, kind, id string, version int64) error {
	_, err := c.call(ctx, "deleterecord", request{Kind: kind, ID: id, Version: version})
	return err
}

func (c *Client) ListRecords(ctx context.Context, kind, after string, limit int) ([]store.Record, error) {
	r, err := c.call(ctx, "listrecords", request{Kind: kind, After: after, Limit: limit})
	return r.Records, err
}

func (c *Client) Incr(ctx context.Context, name string, delta int64, expiresAt time.Time) (int64, error) {
	r, err := c.call(ctx, "incr", request{Name: name, Delta: delta, ExpiresAt: expiresAt})
	return r.Count, err
}

// Close ends the client; the serving process's store stays open.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return store.ErrClosed
	}
	c.http.CloseIdleConnections()
	return nil
}
