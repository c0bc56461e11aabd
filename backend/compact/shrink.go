package compact

import (
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// An overflow retry (L3) could not shrink the newest tool result: L1 keeps the hot tail
// verbatim and L0 applies at entry only, so with an 8k window a turn whose newest result
// alone overflowed ended in error after "compacting harder (1 of 2)… (2 of 2)" changed
// nothing. On a retry (Level > 0) every tool result shown verbatim that is over the harder L0
// budget is shown as its L0 preview and reference instead, and its ref is kept in the State,
// so later requests show it so too (they would overflow again), whatever their level.

// shrink shows the tool results of cur as their L0 preview where the State says so, or, on a
// retry, where they are over the L0 budget of cfg; the texts now only stored are rep's blobs.
func shrink(conv, cur []llm.Message, st *State, cfg Config, rep *Report) {
	if cfg.Level == 0 && st.Shrunk == "" {
		return
	}
	for i := range conv {
		m := conv[i]
		if !IsToolResult(m) || cur[i].Content != m.Content || IsPlaceholder(m.Content) || RefIn(m.Content) != "" {
			continue // compacted already, or already a preview with its reference
		}
		tool := ToolNameAt(conv, i)
		ref := Ref(m.Content)
		known := slices.Contains(strings.Fields(st.Shrunk), ref)
		if !known && (cfg.Level == 0 || len(m.Content) <= cfg.L0.Budget(tool)) {
			continue
		}
		if !known {
			st.Shrunk = strings.TrimSpace(st.Shrunk + " " + ref)
		}
		cur[i].Content = preview(tool, m.Content, ref, shrunkPreview)
		rep.Blobs = append(rep.Blobs, Blob{Ref: ref, Text: m.Content})
		rep.Compacted++
		rep.SavedTokens += MessageTokens(m) - MessageTokens(cur[i])
	}
}

// shrunkPreview is the preview of a shrunk result, the same at every level (a stable request
// after the retry): half the usual L0 preview (2,250 characters, about 600 tokens), which fits an 8k window
// beside the system prompt and the tools.
var shrunkPreview = L0Config{HeadChars: 1_500, TailChars: 750}
