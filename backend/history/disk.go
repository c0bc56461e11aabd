package history

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

// The index lives in the store's Badger database under "hx/", beside the logs it projects:
//
//	hx/meta               the format version, the segments, the next doc and segment numbers,
//	                      the statistics of the flushed live documents (JSON)
//	hx/p/<seg><term>      the postings of term in one segment (seg: 4 bytes, big-endian)
//	hx/d/<doc>            one indexed message: session, seq, field lengths, language (JSON)
//	hx/s/<session>        the last seq of the session's log the index has read, and the title
//	                      its messages were indexed with (JSON)
//	hx/x/<doc>            a removed document (its session was deleted or renamed)
//
// Documents are appended to segments that never change: a flush writes the messages indexed
// since the last one as a new segment, in one transaction with hx/meta and the sessions'
// hx/s, so what is on disk always agrees with itself; messages appended since are read again
// from the log on the next open (hx/s says from where). Small segments are merged into larger
// ones (fanout of one level make one of the next), so a query reads a few keys per term.
const (
	// formatVersion changes with the layout or the analysis (a new stemmer changes every
	// term): an index of another version is dropped and built again from the logs.
	formatVersion = 1

	prefix     = "hx/"
	metaKey    = prefix + "meta"
	postPrefix = prefix + "p/"
	docPrefix  = prefix + "d/"
	sessPrefix = prefix + "s/"
	deadPrefix = prefix + "x/"
)

// nFields: a message's text, the tools it called with their arguments, and its session's
// title (a paper's sessions are titled after the paper). They weigh alike.
const nFields = 3

type meta struct {
	Version  int       `json:"version"`
	NextDoc  uint32    `json:"next_doc"`
	NextSeg  uint32    `json:"next_seg"`
	Segments []segment `json:"segments"`
	Stats    stats     `json:"stats"`
	// Garbage are merged segments whose keys are still to delete.
	Garbage []uint32 `json:"garbage,omitempty"`
}

type segment struct {
	ID    uint32 `json:"id"`
	Level int    `json:"level"`
	Docs  int    `json:"docs"`
}

// stats are BM25's collection statistics: live documents, tokens per field, and languages
// (the most common one analyzes queries that give no sign of theirs).
type stats struct {
	Live   int            `json:"live"`
	Totals [nFields]int64 `json:"totals"`
	Langs  map[string]int `json:"langs,omitempty"`
}

func (s stats) clone() stats {
	c := s
	c.Langs = make(map[string]int, len(s.Langs))
	for l, n := range s.Langs {
		c.Langs[l] = n
	}
	return c
}

// add counts a document in (sign 1) or out (sign -1).
func (s *stats) add(lens [nFields]int32, lang string, sign int) {
	s.Live += sign
	for f, l := range lens {
		s.Totals[f] += int64(sign) * int64(l)
	}
	if lang == "" {
		return
	}
	if s.Langs == nil {
		s.Langs = map[string]int{}
	}
	if s.Langs[lang] += sign; s.Langs[lang] <= 0 {
		delete(s.Langs, lang)
	}
}

// language is the most common document language.
func (s stats) language() string {
	best, n := "", 0
	for l, c := range s.Langs {
		if c > n || (c == n && l < best) {
			best, n = l, c
		}
	}
	return best
}

// docRecord is an indexed message as stored in hx/d.
type docRecord struct {
	Session string         `json:"s"`
	Seq     uint64         `json:"q"`
	Lens    [nFields]int32 `json:"l"`
	Lang    string         `json:"g,omitempty"`
}

// sessState is how far the index has read a session's log, and the title it used.
type sessState struct {
	Seq   uint64 `json:"seq"`
	Title string `json:"title"`
}

func postKey(seg uint32, term string) []byte {
	return append(binary.BigEndian.AppendUint32([]byte(postPrefix), seg), term...)
}

func segPrefix(seg uint32) []byte { return binary.BigEndian.AppendUint32([]byte(postPrefix), seg) }

func docKey(doc uint32) []byte { return binary.BigEndian.AppendUint32([]byte(docPrefix), doc) }

func deadKey(doc uint32) []byte { return binary.BigEndian.AppendUint32([]byte(deadPrefix), doc) }

func sessKey(id string) []byte { return []byte(sessPrefix + id) }

func setJSON(txn *badger.Txn, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return txn.Set(key, b)
}

// getJSON reads key into v and reports whether it exists.
func getJSON(txn *badger.Txn, key []byte, v any) (bool, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := item.Value(func(b []byte) error { return json.Unmarshal(b, v) }); err != nil {
		return false, fmt.Errorf("read %q: %w", key, err)
	}
	return true, nil
}

// entry is one document in a posting list: the term's frequency and the length of each field
// (0, 0 where the field lacks the term). Lengths ride along so a query scores from postings
// alone.
type entry struct {
	doc  uint32
	tf   [nFields]uint16
	lens [nFields]int32
}

// appendEntry encodes e after prev (the previous document of the list): the doc delta, a mask
// of the fields holding the term, then each one's frequency and length, as varints.
func appendEntry(buf []byte, prev uint32, e entry) []byte {
	buf = binary.AppendUvarint(buf, uint64(e.doc-prev))
	var mask byte
	for f := range nFields {
		if e.tf[f] > 0 {
			mask |= 1 << f
		}
	}
	buf = append(buf, mask)
	for f := range nFields {
		if e.tf[f] > 0 {
			buf = binary.AppendUvarint(buf, uint64(e.tf[f]))
			buf = binary.AppendUvarint(buf, uint64(e.lens[f]))
		}
	}
	return buf
}

// eachEntry decodes a posting list.
func eachEntry(buf []byte, fn func(entry)) error {
	var prev uint32
	for len(buf) > 0 {
		var e entry
		d, n := binary.Uvarint(buf)
		if n <= 0 || len(buf) < n+1 {
			return errors.New("corrupt posting list")
		}
		e.doc = prev + uint32(d)
		mask := buf[n]
		buf = buf[n+1:]
		for f := range nFields {
			if mask&(1<<f) == 0 {
				continue
			}
			tf, n1 := binary.Uvarint(buf)
			if n1 <= 0 {
				return errors.New("corrupt posting list")
			}
			l, n2 := binary.Uvarint(buf[n1:])
			if n2 <= 0 {
				return errors.New("corrupt posting list")
			}
			e.tf[f], e.lens[f] = uint16(tf), int32(l)
			buf = buf[n1+n2:]
		}
		prev = e.doc
		fn(e)
	}
	return nil
}
