package lang

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
)

// Adversary is a deterministic stand-in for a translation model that does what models do to
// placeholders: it rewrites all the prose (letters of each word reversed, case swapped), moves
// placeholders (neighbours swap places), mangles them (spaces inside, full-width brackets and
// digits, lower case, single or other brackets), repeats some, and on a first attempt drops one
// from a third of the chunks (and from a ninth on the second attempt) so retries are exercised.
type Adversary struct{}

func (Adversary) Translate(_ context.Context, text, _, _ string, attempt int) (string, error) {
	h := fnv.New64a()
	h.Write([]byte(text))
	seed := h.Sum64()
	// FNV's low bits follow the last bytes; a finalizer spreads them (a third of the chunks
	// dropping, not none).
	seed ^= seed >> 33
	seed *= 0xff51afd7ed558ccd
	seed ^= seed >> 33
	locs := canonical.FindAllStringIndex(text, -1)
	ids := make([]int, len(locs))
	for i, l := range locs {
		ids[i] = placeholderID(text[l[0]:l[1]])
	}
	for i := 0; i+1 < len(ids); i += 2 { // moved: each pair swaps places
		ids[i], ids[i+1] = ids[i+1], ids[i]
	}
	drop := -1
	if len(ids) > 0 && ((attempt == 0 && seed%3 == 0) || (attempt == 1 && seed%9 == 0)) {
		drop = int(seed>>8) % len(ids)
	}
	var b strings.Builder
	at := 0
	for i, l := range locs {
		b.WriteString(rewrite(text[at:l[0]]))
		at = l[1]
		if i == drop {
			continue
		}
		p := mangle(ids[i], seed+uint64(i)*0x9e3779b9)
		b.WriteString(p)
		if (seed+uint64(i))%11 == 0 {
			b.WriteString(" " + p) // repeated
		}
	}
	b.WriteString(rewrite(text[at:]))
	return b.String(), nil
}

// mangle writes placeholder id the way one of several sloppy models would.
func mangle(id int, r uint64) string {
	n := fmt.Sprint(id)
	wide := strings.Map(func(c rune) rune { return c - '0' + '０' }, n)
	switch r % 9 {
	case 0:
		return placeholder(id)
	case 1:
		return "[[ T" + n + " ]]"
	case 2:
		return "［［Ｔ" + wide + "］］"
	case 3:
		return "[[t" + n + "]]"
	case 4:
		return "[T" + n + "]"
	case 5:
		return "【T" + n + "】"
	case 6:
		return "⟦ t" + wide + " ⟧"
	case 7:
		return "　[[T " + n + "]] "
	default:
		return "[[T_" + n + "]]"
	}
}

// rewrite turns prose into other prose: each run of letters reversed with its case swapped.
// It cannot make a placeholder: a bracketed single T would have been protected as a lookalike.
func rewrite(s string) string {
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !unicode.IsLetter(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && unicode.IsLetter(rs[j]) {
			j++
		}
		for a, b := i, j-1; a < b; a, b = a+1, b-1 {
			rs[a], rs[b] = rs[b], rs[a]
		}
		for k := i; k < j; k++ {
			if unicode.IsUpper(rs[k]) {
				rs[k] = unicode.ToLower(rs[k])
			} else {
				rs[k] = unicode.ToUpper(rs[k])
			}
		}
		i = j
	}
	return string(rs)
}
