package session_test

import (
	"testing"

	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/swarm"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/browse"
	"github.com/tofu-research/tofu/backend/tools/coding"
	"github.com/tofu-research/tofu/backend/tools/delegate"
	"github.com/tofu-research/tofu/backend/tools/desk"
	"github.com/tofu-research/tofu/backend/tools/webtools"
)

// The real families' tool names map to their families (a renamed tool would otherwise stay on
// when its family is turned off), and the tools no family owns map to none.
func TestFamilyOfTheRealTools(t *testing.T) {
	t.Parallel()
	box := coding.NewToolbox(coding.Options{})
	defer box.Close()
	reg := tools.NewRegistry(box.Tools()...)
	want := map[string]store.ToolFamily{"tool_search": "", "ask_human": "", "read_result": "", "skill": "", "conversation_search": ""}
	for _, n := range reg.Names() {
		want[n] = store.FamilyCoding
	}
	for _, n := range browse.Names {
		want[n] = store.FamilyBrowser
	}
	for _, n := range desk.Names {
		want[n] = store.FamilyDesktop
	}
	for _, n := range webtools.Names {
		want[n] = store.FamilyWeb
	}
	for _, n := range memory.ToolNames {
		want[n] = store.FamilyMemory
	}
	for _, n := range []string{swarm.SpawnName, delegate.Name, "artifact_store", "artifact_read", "artifact_list"} {
		want[n] = store.FamilySwarm
	}
	for name, fam := range want {
		if got := session.FamilyOf(reg, name); got != fam {
			t.Errorf("FamilyOf(%s) = %q, want %q", name, got, fam)
		}
	}
}
