package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/tofu-research/tofu/backend/search"
	"github.com/tofu-research/tofu/backend/store"
)

// BM25's constants: Robertson's textbook values, as backend/search uses.
var params = search.DefaultParams

// view is what one search reads: the segments and tombstones as of a moment, the documents
// not yet flushed, the statistics over both, and a read transaction at that moment.
type view struct {
	segs    []segment
	dead    map[uint32]bool
	pending []*pdoc
	stats   stats
	titles  map[string]string
	docs    uint32 // document numbers are below
	txn     *badger.Txn
}

func (x *Index) view() view {
	x.mu.Lock()
	defer x.mu.Unlock()
	v := view{segs: x.meta.Segments, dead: x.dead, pending: x.pending, stats: x.meta.Stats.clone(),
		docs: x.nextDoc, titles: make(map[string]string, len(x.sessions))}
	for _, d := range v.pending {
		v.stats.add(d.lens, d.lang, 1)
	}
	for id, s := range x.sessions {
		v.titles[id] = s.Title
	}
	// Opened under mu: the segments named above are all in it, and the merged ones the worker
	// deletes later still are.
	v.txn = x.db.NewTransaction(false)
	return v
}

// Search returns up to k messages for query, best first, each with a snippet around the
// first place a query word appears. It waits for the index to have caught up with the logs
// since it was opened.
func (x *Index) Search(query string, k int) ([]Match, error) {
	<-x.ready
	if err := x.failed(); err != nil {
		return nil, err
	}
	if k <= 0 {
		k = 20
	}
	v := x.view()
	defer v.txn.Discard()
	fallback := v.stats.language()
	if !search.IsLatinLanguage(fallback) {
		fallback = ""
	}
	qterms := x.an.Terms(query, x.an.Language(query, fallback))
	scores := make([]float64, v.docs)
	var touched []uint32
	err := v.score(qterms, func(doc uint32, s float64) {
		if scores[doc] == 0 {
			touched = append(touched, doc)
		}
		scores[doc] += s
	})
	if err != nil {
		return nil, fmt.Errorf("search history: %w", err)
	}
	best := search.TopK(scores, touched, k)
	out := make([]Match, 0, len(best))
	for _, doc := range best {
		m, err := x.match(v, doc, query)
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, badger.ErrKeyNotFound) {
			continue // its session was deleted since the view
		}
		if err != nil {
			return nil, err
		}
		m.Score = scores[doc]
		out = append(out, m)
	}
	// Equal scores in log order, whatever order the documents were indexed in.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if out[i].Session != out[j].Session {
			return out[i].Session < out[j].Session
		}
		return out[i].Seq < out[j].Seq
	})
	return out, nil
}

// score calls add with each query term's BM25F contribution to every live document holding it.
func (v view) score(qterms []string, add func(doc uint32, s float64)) error {
	if v.stats.Live <= 0 {
		return nil
	}
	b, k1 := params.B, params.K1
	var coef [nFields]float64
	for f, t := range v.stats.Totals {
		coef[f] = b / math.Max(float64(t)/float64(v.stats.Live), 1)
	}
	acc := func(e entry) float64 {
		a := 0.0
		for f := range nFields {
			if e.tf[f] > 0 {
				a += float64(e.tf[f]) / (1 - b + coef[f]*float64(e.lens[f]))
			}
		}
		return a
	}
	type hit struct {
		doc uint32
		acc float64
	}
	var hits []hit
	seen := map[string]bool{}
	for _, t := range qterms {
		if seen[t] {
			continue
		}
		seen[t] = true
		hits = hits[:0]
		for _, s := range v.segs {
			item, err := v.txn.Get(postKey(s.ID, t))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			err = item.Value(func(buf []byte) error {
				return eachEntry(buf, func(e entry) {
					if !v.dead[e.doc] {
						hits = append(hits, hit{e.doc, acc(e)})
					}
				})
			})
			if err != nil {
				return err
			}
		}
		for _, d := range v.pending {
			if tf, ok := d.tf[t]; ok {
				e := entry{doc: d.num, tf: tf, lens: d.lens}
				hits = append(hits, hit{d.num, acc(e)})
			}
		}
		if len(hits) == 0 {
			continue
		}
		df := float64(len(hits))
		idf := math.Log(1 + (float64(v.stats.Live)-df+0.5)/(df+0.5))
		for _, h := range hits {
			add(h.doc, idf*h.acc*(k1+1)/(h.acc+k1))
		}
	}
	return nil
}

// match is what a search shows of a document: its message, read from the log.
func (x *Index) match(v view, doc uint32, query string) (Match, error) {
	var session string
	var seq uint64
	if i := sort.Search(len(v.pending), func(i int) bool { return v.pending[i].num >= doc }); i < len(v.pending) && v.pending[i].num == doc {
		session, seq = v.pending[i].session, v.pending[i].seq
	} else {
		item, err := v.txn.Get(docKey(doc))
		if err != nil {
			return Match{}, err
		}
		var r docRecord
		if err := item.Value(func(b []byte) error { return json.Unmarshal(b, &r) }); err != nil {
			return Match{}, err
		}
		session, seq = r.Session, r.Seq
	}
	title, ok := v.titles[session]
	if !ok {
		return Match{}, store.ErrNotFound
	}
	ev, err := x.st.EventAt(session, seq)
	if err != nil {
		return Match{}, err
	}
	text, tools, _ := fieldsOf(ev)
	if text == "" {
		text = tools
	}
	return Match{Session: session, Title: title, Seq: seq, Type: ev.Type, Time: ev.Time,
		Snippet: Snippet(text, query, 160)}, nil
}
