// Package realollama runs a real `ollama serve` for tests: a tiny model it writes itself (a
// valid GGUF with a byte vocabulary and random weights), imported with `ollama create`, on a
// loopback port with its own models folder. The words it produces are nonsense; the protocol
// around them is the real one.
package realollama

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// TinyModel is the shape of the model WriteGGUF writes: a llama-architecture transformer small
// enough to load and generate in a fraction of a second on one CPU core.
type TinyModel struct {
	ContextLength int // llama.context_length, what /api/show reports
	Embedding     int
	Layers        int
	Heads         int
	FeedForward   int
	Seed          uint64
	// Vocab, when set, adds the first Vocab pieces of o200k's vocabulary (vocab.go) as whole
	// tokens, so the model's tokenizer cuts text about as finely as Tofu's counter does: a
	// context length then holds about as many o200k tokens. 0 keeps the byte vocabulary.
	Vocab int
}

// DefaultTinyModel is 117K float32 weights, a 470 KB file.
var DefaultTinyModel = TinyModel{ContextLength: 2048, Embedding: 64, Layers: 2, Heads: 4, FeedForward: 128, Seed: 1}

// GGUF value types and the float32 tensor type (ggml's numbering).
const (
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufString  = 8
	ggufBool    = 7
	ggufArray   = 9
	ggmlF32     = 0
	alignment   = 32
)

// Special tokens. Their output rows are zero, so with random weights a sampler never picks them
// over the ~40 best of the others: a reply runs until num_predict, which the tests rely on to
// have a stream long enough to cut.
const (
	tokUnk = 0
	tokBOS = 1
	tokEOS = 2
)

type kv struct {
	key string
	val any // uint32, float32, string, []string, []float32, []int32
}

type tensor struct {
	name string
	dims []uint64 // ggml order: dims[0] varies fastest
	data []float32
}

// vocab is SentencePiece-style: three special tokens, then the 256 byte tokens every text falls
// back to, then a few whole words.
func vocab(pieces int) (tokens []string, scores []float32, types []int32) {
	tokens = []string{"<unk>", "<s>", "</s>"}
	types = []int32{2, 3, 3} // unknown, control, control
	for b := 0; b < 256; b++ {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, 6) // byte
	}
	scores = make([]float32, len(tokens))
	for i := range scores {
		scores[i] = -float32(i)
	}
	if pieces > 0 {
		words, ranks := o200kPieces(pieces)
		tokens = append(tokens, words...)
		for _, r := range ranks {
			// SentencePiece merges the pair whose join scores highest: -rank merges as o200k's
			// BPE does (lower rank first).
			scores = append(scores, -float32(len(tokens)+r))
			types = append(types, 1) // normal
		}
		return tokens, scores, types
	}
	for _, w := range []string{"▁the", "▁a", "▁tofu", "▁model", "▁tool", "▁and", "▁of", "▁is", "▁to", "▁in"} {
		tokens = append(tokens, w)
		scores = append(scores, -float32(len(scores)))
		types = append(types, 1) // normal
	}
	return tokens, scores, types
}

// WriteGGUF writes m as a GGUF v3 file with random float32 weights.
func WriteGGUF(w io.Writer, m TinyModel) error {
	tokens, scores, types := vocab(m.Vocab)
	nv, ne, nff := uint64(len(tokens)), uint64(m.Embedding), uint64(m.FeedForward)
	rng := rand.New(rand.NewPCG(m.Seed, 0x70f0))
	random := func(n uint64, scale float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64() * scale)
		}
		return out
	}
	ones := func(n uint64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	proj := 1 / math.Sqrt(float64(ne))
	output := random(nv*ne, 1)
	for _, t := range []int{tokUnk, tokBOS, tokEOS} {
		clear(output[uint64(t)*ne : uint64(t+1)*ne])
	}
	ts := []tensor{
		{"token_embd.weight", []uint64{ne, nv}, random(nv*ne, 1)},
		{"output_norm.weight", []uint64{ne}, ones(ne)},
		{"output.weight", []uint64{ne, nv}, output},
	}
	for l := 0; l < m.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			tensor{p + "attn_norm.weight", []uint64{ne}, ones(ne)},
			tensor{p + "attn_q.weight", []uint64{ne, ne}, random(ne*ne, proj)},
			tensor{p + "attn_k.weight", []uint64{ne, ne}, random(ne*ne, proj)},
			tensor{p + "attn_v.weight", []uint64{ne, ne}, random(ne*ne, proj)},
			tensor{p + "attn_output.weight", []uint64{ne, ne}, random(ne*ne, proj)},
			tensor{p + "ffn_norm.weight", []uint64{ne}, ones(ne)},
			tensor{p + "ffn_gate.weight", []uint64{ne, nff}, random(ne*nff, proj)},
			tensor{p + "ffn_up.weight", []uint64{ne, nff}, random(ne*nff, proj)},
			tensor{p + "ffn_down.weight", []uint64{nff, ne}, random(nff*ne, 1/math.Sqrt(float64(nff)))},
		)
	}
	kvs := []kv{
		{"general.architecture", "llama"},
		{"general.name", "tofu-tiny"},
		{"general.alignment", uint32(alignment)},
		{"llama.context_length", uint32(m.ContextLength)},
		{"llama.embedding_length", uint32(m.Embedding)},
		{"llama.block_count", uint32(m.Layers)},
		{"llama.feed_forward_length", uint32(m.FeedForward)},
		{"llama.attention.head_count", uint32(m.Heads)},
		{"llama.attention.head_count_kv", uint32(m.Heads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(m.Embedding / m.Heads)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.unknown_token_id", uint32(tokUnk)},
		{"tokenizer.ggml.bos_token_id", uint32(tokBOS)},
		{"tokenizer.ggml.eos_token_id", uint32(tokEOS)},
		{"tokenizer.ggml.add_bos_token", true},
	}
	return writeGGUF(w, kvs, ts)
}

func writeGGUF(out io.Writer, kvs []kv, ts []tensor) error {
	w := &ggufWriter{w: bufio.NewWriter(out)}
	w.raw([]byte("GGUF"))
	w.num(uint32(3))
	w.num(uint64(len(ts)))
	w.num(uint64(len(kvs)))
	for _, p := range kvs {
		w.str(p.key)
		w.value(p.val)
	}
	var offset uint64
	for _, t := range ts {
		w.str(t.name)
		w.num(uint32(len(t.dims)))
		for _, d := range t.dims {
			w.num(d)
		}
		w.num(uint32(ggmlF32))
		w.num(offset)
		offset = align(offset + uint64(len(t.data))*4)
	}
	w.pad()
	for _, t := range ts {
		w.num(t.data)
		w.pad()
	}
	if w.err != nil {
		return fmt.Errorf("write gguf: %w", w.err)
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("write gguf: %w", err)
	}
	return nil
}

func align(n uint64) uint64 { return (n + alignment - 1) / alignment * alignment }

// ggufWriter keeps the first error, so the layout code above reads as the format does.
type ggufWriter struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (w *ggufWriter) raw(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
		w.n += uint64(len(b))
	}
}

func (w *ggufWriter) num(v any) {
	if w.err == nil {
		w.err = binary.Write(w.w, binary.LittleEndian, v)
		w.n += uint64(binary.Size(v))
	}
}

func (w *ggufWriter) str(s string) {
	w.num(uint64(len(s)))
	w.raw([]byte(s))
}

func (w *ggufWriter) pad() {
	if rem := align(w.n) - w.n; rem > 0 {
		w.raw(make([]byte, rem))
	}
}

func (w *ggufWriter) value(v any) {
	switch v := v.(type) {
	case uint32:
		w.num(uint32(ggufUint32))
		w.num(v)
	case float32:
		w.num(uint32(ggufFloat32))
		w.num(v)
	case bool:
		w.num(uint32(ggufBool))
		w.num(v)
	case string:
		w.num(uint32(ggufString))
		w.str(v)
	case []string:
		w.num(uint32(ggufArray))
		w.num(uint32(ggufString))
		w.num(uint64(len(v)))
		for _, s := range v {
			w.str(s)
		}
	case []float32:
		w.num(uint32(ggufArray))
		w.num(uint32(ggufFloat32))
		w.num(uint64(len(v)))
		w.num(v)
	case []int32:
		w.num(uint32(ggufArray))
		w.num(uint32(ggufInt32))
		w.num(uint64(len(v)))
		w.num(v)
	default:
		w.err = fmt.Errorf("gguf: no encoding for %T", v)
	}
}

// EvalTinyModel is the model `tofu eval local` measures Ollama's cache with: a 32k context, as
// Tofu runs local models (ollama.DefaultContextCap), and 32k pieces of o200k's vocabulary, so a
// window holds about as many tokens as Tofu counts (a 17 MB file).
var EvalTinyModel = TinyModel{ContextLength: 32768, Embedding: 64, Layers: 2, Heads: 4, FeedForward: 128, Seed: 1, Vocab: 32000}
