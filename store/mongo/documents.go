package mongo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"providerdir/store"
)

// wireDoc is a data document as read back (s is never read: the order value of a page's last
// document is recomputed from its keys with store.SmallestValue).
type wireDoc struct {
	ID   string   `bson:"_id"`
	Body []byte   `bson:"b"`
	Keys []string `bson:"k"`
}

var docProjection = bson.D{{Key: "b", Value: 1}, {Key: "k", Value: 1}}

// bodyProjection reads a document without its keys (GetBodies).
var bodyProjection = bson.D{{Key: "b", Value: 1}}

// collState remembers which indexes this process has made sure of for one physical collection,
// so that a Put costs index round trips only the first time a collection or param shows up.
type collState struct {
	mu     sync.Mutex
	ready  bool            // the key index exists (and the catalog entry, for a hashed name)
	sorted map[string]bool // params whose order index exists, or that are past maxSortIndexes
}

// keyPrefix is the stored form of a key's param part. The decimal length makes the param
// self-delimiting whatever bytes it holds, and a key's stored form starts with its param's
// prefix, so a prefix condition stays a prefix (an anchored regex the server can bound).
func keyPrefix(param string) string {
	return strconv.Itoa(len(param)) + ":" + param + "="
}

func encKey(k store.Key) string { return enc(keyPrefix(k.Param) + k.Value) }

func decKey(s string) (store.Key, error) {
	raw, err := dec(s)
	if err != nil {
		return store.Key{}, err
	}
	colon := strings.IndexByte(raw, ':')
	n, err := strconv.Atoi(raw[:max(colon, 0)])
	if colon < 0 || err != nil || n < 1 || colon+1+n >= len(raw) || raw[colon+1+n] != '=' {
		return store.Key{}, fmt.Errorf("store/mongo: malformed stored key %q", s)
	}
	return store.Key{Param: raw[colon+1 : colon+1+n], Value: raw[colon+2+n:]}, nil
}

// orderField is the field a param's order value is stored under.
func orderField(param string) string { return "s." + encField(param) }

// physName returns the physical collection of (generation, collection) and whether it is the
// hashed form that needs a catalog entry.
func (s *Store) physName(generation, collection string) (string, bool) {
	name := dataPrefix + generation + "~" + collection
	if len(s.dbName)+1+len(name) <= maxNamespace {
		return name, false
	}
	sum := sha256.Sum256([]byte(generation + "~" + collection))
	return dataPrefix + "~" + hex.EncodeToString(sum[:]), true
}

func (s *Store) state(phys string) *collState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.colls[phys]
	if st == nil {
		st = &collState{sorted: map[string]bool{}}
		s.colls[phys] = st
	}
	return st
}

func (s *Store) forget(phys string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.colls, phys)
}

// ensure creates what a physical collection needs before documents with the given params are
// written into it. Creating indexes on an empty collection is instant, and later writes keep
// them up to date.
func (s *Store) ensure(ctx context.Context, generation, collection, phys string, hashed bool, params []string) error {
	st := s.state(phys)
	st.mu.Lock()
	defer st.mu.Unlock()
	c := s.db.Collection(phys)
	if !st.ready {
		if err := s.createCollection(ctx, phys); err != nil {
			return err
		}
		if hashed {
			_, err := s.db.Collection(catalogColl).ReplaceOne(ctx, bson.D{{Key: "_id", Value: phys}},
				bson.D{{Key: "_id", Value: phys}, {Key: "g", Value: generation}, {Key: "c", Value: collection}},
				options.Replace().SetUpsert(true))
			if err != nil {
				return s.fail("catalog "+generation+"/"+collection, err)
			}
		}
		if s.indexData {
			_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
				Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetName("k"),
			})
			if err != nil {
				return s.fail("create key index on "+phys, err)
			}
		}
		st.ready = true
	}
	if !s.indexData {
		return nil
	}
	// One index per call: see the package comment on FerretDB, and an index that fails should
	// not hide which one it was.
	for _, p := range params {
		if st.sorted[p] {
			continue
		}
		if len(st.sorted) < maxSortIndexes {
			_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
				Keys: bson.D{{Key: orderField(p), Value: 1}, {Key: "_id", Value: 1}},
			})
			if err != nil {
				return s.fail("create order index on "+phys, err)
			}
		}
		st.sorted[p] = true
	}
	return nil
}

// Put writes the batch as an unordered insert of every document, followed, for the documents
// that already existed (the insert's duplicate key errors), by an unordered bulk write of
// replacements. An ingest writes a fresh generation, so its batches are plain inserts: the
// cheapest write on MongoDB, and on FerretDB the only one that does not scan the collection (its
// update path finds a document by _id with a containment test that its _id index cannot serve,
// which made bulk upserts quadratic in the collection size). Each write is one whole document,
// so concurrent Puts of one id leave one of them whole, as upserts would.
//
// A document that appears twice in a batch is written once, as its last occurrence, because the
// server may apply an unordered batch in any order.
func (s *Store) Put(ctx context.Context, generation, collection string, docs []store.Document) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := store.ValidateDocuments(generation, collection, docs); err != nil {
		return err
	}
	if len(docs) == 0 {
		return nil
	}
	release, err := s.enter(ctx)
	if err != nil {
		return err
	}
	defer release()
	last := make(map[string]int, len(docs))
	for i, d := range docs {
		last[d.ID] = i
	}
	params := map[string]bool{}
	stored := make([]any, 0, len(last))
	for i, d := range docs {
		if last[d.ID] == i {
			stored = append(stored, dataDoc(enc(d.ID), d, params))
		}
	}
	phys, hashed := s.physName(generation, collection)
	sorted := make([]string, 0, len(params))
	for p := range params {
		sorted = append(sorted, p)
	}
	slices.Sort(sorted)
	if err := s.ensure(ctx, generation, collection, phys, hashed, sorted); err != nil {
		return err
	}
	what := fmt.Sprintf("put %d documents into %s/%s", len(stored), generation, collection)
	coll := s.db.Collection(phys)
	_, err = coll.InsertMany(ctx, stored, options.InsertMany().SetOrdered(false))
	if err == nil {
		return nil
	}
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil || len(bwe.WriteErrors) == 0 {
		return s.fail(what, err)
	}
	replace := make([]mongo.WriteModel, 0, len(bwe.WriteErrors))
	for _, we := range bwe.WriteErrors {
		if we.Code != codeDuplicateKey || we.Index < 0 || we.Index >= len(stored) {
			return s.fail(what, err)
		}
		d := stored[we.Index].(bson.D)
		replace = append(replace, mongo.NewReplaceOneModel().
			SetFilter(bson.D{d[0]}). // _id
			SetReplacement(d).
			// The document may have been dropped since the insert saw it.
			SetUpsert(true))
	}
	if _, err := coll.BulkWrite(ctx, replace, options.BulkWrite().SetOrdered(false)); err != nil {
		return s.fail(what, err)
	}
	return nil
}

// dataDoc builds the stored form of d and adds its params to params.
func dataDoc(id string, d store.Document, params map[string]bool) bson.D {
	keys := make(bson.A, len(d.Keys))
	smallest := map[string]string{}
	var order []string
	for i, k := range d.Keys {
		keys[i] = encKey(k)
		if v, ok := smallest[k.Param]; !ok || k.Value < v {
			if !ok {
				order = append(order, k.Param)
			}
			smallest[k.Param] = k.Value
		}
	}
	doc := bson.D{
		{Key: "_id", Value: id},
		{Key: "b", Value: bson.Binary{Data: d.Body}},
		{Key: "k", Value: keys},
	}
	if len(order) > 0 {
		s := make(bson.D, len(order))
		for i, p := range order {
			s[i] = bson.E{Key: encField(p), Value: enc(smallest[p])}
			params[p] = true
		}
		doc = append(doc, bson.E{Key: "s", Value: s})
	}
	return doc
}

func (w wireDoc) document() (store.Document, error) {
	id, err := dec(w.ID)
	if err != nil {
		return store.Document{}, err
	}
	d := store.Document{ID: id, Body: w.Body}
	if d.Body == nil {
		d.Body = []byte{}
	}
	if len(w.Keys) > 0 {
		d.Keys = make([]store.Key, len(w.Keys))
		for i, k := range w.Keys {
			if d.Keys[i], err = decKey(k); err != nil {
				return store.Document{}, err
			}
		}
	}
	return d, nil
}

// Get returns one document.
func (s *Store) Get(ctx context.Context, generation, collection, id string) (store.Document, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return store.Document{}, err
	}
	defer release()
	return s.get(ctx, generation, collection, id, docProjection)
}

// get returns one document with the fields of projection.
func (s *Store) get(ctx context.Context, generation, collection, id string, projection bson.D) (store.Document, error) {
	if err := s.checkOpen(); err != nil {
		return store.Document{}, err
	}
	if err := store.ValidateName("generation", generation); err != nil {
		return store.Document{}, err
	}
	if err := store.ValidateName("collection", collection); err != nil {
		return store.Document{}, err
	}
	if err := store.ValidateID(id); err != nil {
		return store.Document{}, err
	}
	phys, _ := s.physName(generation, collection)
	var w wireDoc
	err := s.db.Collection(phys).FindOne(ctx, bson.D{{Key: "_id", Value: enc(id)}},
		options.FindOne().SetProjection(projection)).Decode(&w)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return store.Document{}, fmt.Errorf("store/mongo: %s/%s/%q: %w", generation, collection, id, store.ErrNotFound)
	}
	if err != nil {
		return store.Document{}, s.fail("get", err)
	}
	return w.document()
}

// GetMany reads the documents with one $in query on _id: one round trip for a page's included
// resources however many there are. On FerretDB it reads them by _id (pointGets).
func (s *Store) GetMany(ctx context.Context, generation, collection string, ids []string, _ *store.Arena) ([]store.Document, error) {
	return s.getMany(ctx, generation, collection, ids, docProjection)
}

// GetBodies reads as GetMany does, without the documents' keys.
func (s *Store) GetBodies(ctx context.Context, generation, collection string, ids []string, _ *store.Arena) ([]store.Document, error) {
	return s.getMany(ctx, generation, collection, ids, bodyProjection)
}

// getMany reads the documents of GetMany with the fields of projection.
func (s *Store) getMany(ctx context.Context, generation, collection string, ids []string, projection bson.D) ([]store.Document, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	ids, err := store.ValidateGetMany(generation, collection, ids)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if s.pointReads {
		return s.pointGets(ctx, generation, collection, ids, projection)
	}
	in := make(bson.A, len(ids))
	for i, id := range ids {
		in[i] = enc(id)
	}
	phys, _ := s.physName(generation, collection)
	cur, err := s.db.Collection(phys).Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}},
		options.Find().SetProjection(projection))
	if err != nil {
		return nil, s.fail("get many", err)
	}
	var wire []wireDoc
	if err := cur.All(ctx, &wire); err != nil {
		return nil, s.fail("get many", err)
	}
	found := make(map[string]store.Document, len(wire))
	for _, w := range wire {
		d, err := w.document()
		if err != nil {
			return nil, err
		}
		found[d.ID] = d
	}
	out := make([]store.Document, 0, len(found))
	for _, id := range ids {
		if d, ok := found[id]; ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// pointGetsAtOnce is how many reads by _id the store has in flight for GetMany, across all its
// callers. On FerretDB each one scans the collection on the server, and the server shares its
// cores among the scans in flight: a page's reads sent together finish no later than sent a few
// at a time, so the bound lets the includes of a default page of 20 go at once. Without a bound
// over all callers, the reads of a few concurrent pages each took longer than the operation
// timeout and none of those pages was answered. Reads beyond the bound wait for their turn,
// bounded by the caller's context; the operation timeout starts when a read is sent.
const pointGetsAtOnce = 20

// pointGets reads documents one Get each (with the fields of projection), at most
// pointGetsAtOnce of the store's at a time (fewer on a small pool: see slots), and returns those
// found in the order of ids.
func (s *Store) pointGets(ctx context.Context, generation, collection string, ids []string, projection bson.D) ([]store.Document, error) {
	docs := make([]store.Document, len(ids))
	found := make([]bool, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		select {
		case s.pointSlots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, s.fail("get many", ctx.Err())
		}
		wg.Add(1)
		go func() {
			defer func() { <-s.pointSlots; wg.Done() }()
			d, err := s.get(ctx, generation, collection, id, projection)
			switch {
			case err == nil:
				docs[i], found[i] = d, true
			case !errors.Is(err, store.ErrNotFound):
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	out := docs[:0]
	for i, d := range docs {
		if found[i] {
			out = append(out, d)
		}
	}
	return out, nil
}

// filter returns the query's conditions as one filter document. With OrderBy it also requires
// the order field (a string is always >= ""), which leaves out documents without that param and
// is a bounded scan of the order index.
func filter(q store.Query, after *store.Cursor) bson.D {
	var clauses []bson.D
	for _, c := range q.Where {
		clauses = append(clauses, condition(c))
	}
	if q.OrderBy != "" {
		clauses = append(clauses, bson.D{{Key: orderField(q.OrderBy), Value: bson.D{{Key: "$gte", Value: ""}}}})
	}
	if after != nil {
		clauses = append(clauses, afterClause(q, *after))
	}
	// Clauses go to the top level while their fields are distinct, the rest into $and: the
	// meaning is the same, MongoDB's planner sees through either form, and FerretDB pushes only
	// top-level equalities down to PostgreSQL (a single exact condition then filters there).
	top := bson.D{}
	var and bson.A
	used := map[string]bool{}
	for _, c := range clauses {
		if len(c) == 1 && !used[c[0].Key] {
			used[c[0].Key] = true
			top = append(top, c[0])
		} else {
			and = append(and, c)
		}
	}
	if len(and) > 0 {
		top = append(top, bson.E{Key: "$and", Value: and})
	}
	return top
}

// condition matches documents with a key of c.Param (or of an alternative's param) whose value
// equals (or starts with) one of its values. A single exact value is a plain equality, which
// FerretDB can push down to PostgreSQL; a prefix is an anchored regex of quoted literal text,
// which MongoDB answers with an index range.
func condition(c store.Condition) bson.D {
	var in bson.A
	for _, t := range c.Terms() {
		p := keyPrefix(t.Param)
		for _, v := range t.Values {
			if c.Match == store.Exact {
				in = append(in, enc(p+v))
			} else {
				in = append(in, bson.Regex{Pattern: "^" + regexp.QuoteMeta(enc(p+v))})
			}
		}
	}
	if len(in) == 1 {
		return bson.D{{Key: "k", Value: in[0]}}
	}
	return bson.D{{Key: "k", Value: bson.D{{Key: "$in", Value: in}}}}
}

// afterClause selects what comes strictly after the cursor in the query's order: a greater
// order value, or the same one with a greater id (both reversed when descending). This is a
// range on the (order field, _id) index, so deep pages cost what the first one does.
func afterClause(q store.Query, c store.Cursor) bson.D {
	op := "$gt"
	if q.Descending {
		op = "$lt"
	}
	id := bson.D{{Key: "_id", Value: bson.D{{Key: op, Value: enc(c.ID)}}}}
	if q.OrderBy == "" {
		return id
	}
	f, v := orderField(q.OrderBy), enc(c.Value)
	return bson.D{{Key: "$or", Value: bson.A{
		bson.D{{Key: f, Value: bson.D{{Key: op, Value: v}}}},
		bson.D{{Key: f, Value: v}, {Key: "_id", Value: bson.D{{Key: op, Value: enc(c.ID)}}}},
	}}}
}

// Find returns one page. It asks for one document more than the page holds to know whether
// there is a next page, so the last page never carries a cursor to an empty one.
func (s *Store) Find(ctx context.Context, q store.Query) (store.Page, error) {
	if err := s.checkOpen(); err != nil {
		return store.Page{}, err
	}
	limit, err := store.ValidateQuery(q)
	if err != nil {
		return store.Page{}, err
	}
	var after *store.Cursor
	if q.After != "" {
		c, err := store.DecodeCursor(q.After)
		if err != nil {
			return store.Page{}, err
		}
		after = &c
	}
	release, err := s.enter(ctx)
	if err != nil {
		return store.Page{}, err
	}
	defer release()
	dir := 1
	if q.Descending {
		dir = -1
	}
	sort := bson.D{{Key: "_id", Value: dir}}
	if q.OrderBy != "" {
		sort = bson.D{{Key: orderField(q.OrderBy), Value: dir}, {Key: "_id", Value: dir}}
	}
	// A page ordered by a key needs the keys for its cursor.
	projection := docProjection
	if q.BodiesOnly && q.OrderBy == "" {
		projection = bodyProjection
	}
	phys, _ := s.physName(q.Generation, q.Collection)
	opts := options.Find().
		SetSort(sort).
		SetLimit(int64(limit) + 1).
		SetProjection(projection).
		// A sort the planner serves from memory (a selective key condition beats the order
		// index) may exceed MongoDB's in-memory sort limit on a large result.
		SetAllowDiskUse(true)
	cur, err := s.db.Collection(phys).Find(ctx, filter(q, after), opts)
	if err != nil {
		return store.Page{}, s.fail("find", err)
	}
	var wire []wireDoc
	if err := cur.All(ctx, &wire); err != nil {
		return store.Page{}, s.fail("find", err)
	}
	var page store.Page
	more := len(wire) > limit
	if more {
		wire = wire[:limit]
	}
	page.Docs = make([]store.Document, len(wire))
	for i, w := range wire {
		if page.Docs[i], err = w.document(); err != nil {
			return store.Page{}, err
		}
	}
	if more {
		lastDoc := page.Docs[len(page.Docs)-1]
		c := store.Cursor{ID: lastDoc.ID}
		if q.OrderBy != "" {
			c.Value, _ = store.SmallestValue(lastDoc.Keys, q.OrderBy)
		}
		page.Next = c.Encode()
	}
	// The keys come whole (the cursor needs the order value) and are narrowed to those asked for.
	for i := range page.Docs {
		page.Docs[i].Keys = store.SelectKeys(page.Docs[i].Keys, q)
	}
	return page, nil
}

// Count counts the documents Find would page through.
func (s *Store) Count(ctx context.Context, q store.Query) (int64, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	q.Limit = 0 // Count ignores Limit, including one above MaxLimit.
	if _, err := store.ValidateQuery(q); err != nil {
		return 0, err
	}
	release, err := s.enter(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	phys, _ := s.physName(q.Generation, q.Collection)
	n, err := s.db.Collection(phys).CountDocuments(ctx, filter(q, nil))
	if err != nil {
		return 0, s.fail("count", err)
	}
	return n, nil
}

// dataCollections lists the physical data collections with the generation each belongs to.
func (s *Store) dataCollections(ctx context.Context) (map[string]string, error) {
	names, err := s.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: bson.Regex{Pattern: "^" + regexp.QuoteMeta(dataPrefix)}}})
	if err != nil {
		return nil, s.fail("list collections", err)
	}
	out := map[string]string{}
	var hashed []string
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, dataPrefix)
		if !ok {
			continue
		}
		if strings.HasPrefix(rest, "~") {
			hashed = append(hashed, name)
			continue
		}
		if gen, _, ok := strings.Cut(rest, "~"); ok {
			out[name] = gen
		}
	}
	if len(hashed) > 0 {
		cur, err := s.db.Collection(catalogColl).Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: hashed}}}})
		if err != nil {
			return nil, s.fail("read catalog", err)
		}
		var entries []struct {
			ID  string `bson:"_id"`
			Gen string `bson:"g"`
		}
		if err := cur.All(ctx, &entries); err != nil {
			return nil, s.fail("read catalog", err)
		}
		for _, e := range entries {
			out[e.ID] = e.Gen
		}
	}
	return out, nil
}

// Generations lists the generations with at least one document. A collection can exist empty
// (its indexes are created before its first write, which may have failed), so each generation
// is confirmed by finding one document in one of its collections.
func (s *Store) Generations(ctx context.Context) ([]string, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	colls, err := s.dataCollections(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(colls))
	for name := range colls {
		names = append(names, name)
	}
	slices.Sort(names)
	found := map[string]bool{}
	for _, name := range names {
		gen := colls[name]
		if found[gen] {
			continue
		}
		err := s.db.Collection(name).FindOne(ctx, bson.D{}, options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})).Err()
		switch {
		case err == nil:
			found[gen] = true
		case !errors.Is(err, mongo.ErrNoDocuments):
			return nil, s.fail("generations", err)
		}
	}
	gens := make([]string, 0, len(found))
	for g := range found {
		gens = append(gens, g)
	}
	slices.Sort(gens)
	return gens, nil
}

// DropGeneration drops the generation's collections. Each drop is atomic on its own; a drop
// interrupted half-way leaves some collections of the generation, and dropping it again
// finishes the job.
func (s *Store) DropGeneration(ctx context.Context, generation string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := store.ValidateName("generation", generation); err != nil {
		return err
	}
	release, err := s.enter(ctx)
	if err != nil {
		return err
	}
	defer release()
	colls, err := s.dataCollections(ctx)
	if err != nil {
		return err
	}
	for name, gen := range colls {
		if gen != generation {
			continue
		}
		// Forget the indexes first: a Put racing the drop must create them again.
		s.forget(name)
		if err := s.db.Collection(name).Drop(ctx); err != nil {
			return s.fail("drop "+name, err)
		}
		s.forget(name)
	}
	if _, err := s.db.Collection(catalogColl).DeleteMany(ctx, bson.D{{Key: "g", Value: generation}}); err != nil {
		return s.fail("drop generation catalog entries", err)
	}
	return nil
}
