package compact

import "github.com/tofu-research/tofu/backend/llm"

// Move is the cost model behind a decision to move the mark, as the context_state event
// reports it. Moving re-sends everything from the first newly compacted message uncached (one
// cache rewrite); not moving keeps paying for the tokens a move would remove, at the cache-read
// price, on every later request. Decided online: the only guess about the future is how many
// more requests the session will make, taken to be as many as it has made so far (the median
// remaining life of a process whose length is unknown, given its age).
type Move struct {
	// Saved is the tokens the move removes from every later request.
	Saved int `json:"saved"`
	// Rewrite is the tokens the previous request sent from the rewrite point on, as they are
	// re-sent uncached after the move; Cached is what that part would have cost as a cache
	// read (as it stood, at the read price). The newest reply and its results count in neither:
	// they are uncached either way.
	Rewrite int     `json:"rewrite"`
	Cached  float64 `json:"cached"`
	// Calls is the model calls made so far, the estimate of those still to come.
	Calls int `json:"calls"`
	// Gain is the expected saving in uncached-token equivalents: Saved × price × Calls −
	// (Rewrite − Cached). The mark moves when it is positive.
	Gain float64 `json:"gain"`
	// Pressure: on a local KV cache, the move was taken because the request neared the window
	// plan's limit, not for its gain (KVConfig.Pressure).
	Pressure bool `json:"pressure,omitempty"`
}

// decideMove prices moving the mark now: cur is the view as of the old mark, saved what the
// new one removes, first the first message it changes, left the calls the caller knows are
// left (0: unknown).
func decideMove(conv, cur []llm.Message, first, saved, left int, c L1Config) (Move, bool) {
	m := Move{Saved: saved}
	if saved <= 0 || saved < c.EpochTokens {
		return m, false
	}
	for _, msg := range conv {
		if msg.Role == llm.RoleAssistant {
			m.Calls++
		}
	}
	if left > 0 && left < m.Calls {
		// The caller knows the session ends sooner (the turn's step limit): the saving is
		// repaid on at most that many calls.
		m.Calls = left
	}
	if c.CachePrice <= 0 {
		// No prompt cache to keep (or an overflow retry, where it is lost anyway): every
		// saving is worth taking.
		m.Gain = float64(saved)
		return m, true
	}
	// Only what the previous request already sent was cached: the newest reply and what its
	// calls returned are sent uncached either way.
	old := cachedSpan(conv, cur, first)
	if c.KV.Enabled {
		return decideKV(m, old, countMessages(cur), c.KV)
	}
	m.Rewrite = old - saved
	m.Cached = c.CachePrice * float64(old)
	m.Gain = float64(saved)*c.CachePrice*float64(m.Calls) - (float64(m.Rewrite) - m.Cached)
	return m, m.Gain > 0
}

// candidate is one possible move: the view it leads to and what it would change.
type candidate struct {
	next  []llm.Message
	lag   int
	first int
	blobs []Blob
	move  Move
	ok    bool
}

// priceMove compares the view cur with next: the tokens saved, the first message changed, the
// texts newly behind a ref, and the cost model's verdict. A message whose level did not change
// can still change form (a re-read whose earlier result went cold is shown whole again), so
// every message is compared.
func priceMove(conv, cur, next []llm.Message, left int, c L1Config) candidate {
	cd := candidate{next: next, first: -1}
	saved := 0
	for i := range conv {
		o, n := cur[i], next[i]
		if sameForm(o, n) {
			continue
		}
		saved += MessageTokens(o) - MessageTokens(n)
		if cd.first < 0 {
			cd.first = i
		}
		switch {
		case IsToolResult(conv[i]):
			if IsPlaceholder(n.Content) && RefIn(conv[i].Content) == "" {
				cd.blobs = append(cd.blobs, Blob{Ref: Ref(conv[i].Content), Text: conv[i].Content})
			}
		case conv[i].Role == llm.RoleAssistant && n.Content != conv[i].Content:
			t := assistantBlob(conv[i])
			cd.blobs = append(cd.blobs, Blob{Ref: Ref(t), Text: t})
		}
	}
	cd.move, cd.ok = decideMove(conv, cur, cd.first, saved, left, c)
	return cd
}
