package manage_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama/manage"
	"github.com/tofu-research/tofu/backend/llm/ollama/registrytest"
)

// Before a pull: the manifest's layers against the machine's memory; an unknown model and a
// malformed name are refused with the reason.
func TestPlanPull(t *testing.T) {
	reg := registrytest.New(t)
	reg.OllamaModel("tofu/small:1", []byte("GGUF tiny"), "{{ .Prompt }}", "1K", "F32")
	reg.PushManifest("tofu/huge:1", registrytest.Manifest{SchemaVersion: 2, MediaType: registrytest.ManifestType,
		Layers: []registrytest.Descriptor{{MediaType: registrytest.ModelType, Digest: "sha256:00", Size: 1 << 50}}})
	m, err := manage.New("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	small, err := m.PlanPull(ctx, reg.Name("tofu/small:1"))
	if err != nil || small.TooLarge || small.Bytes == 0 || small.Note != "" {
		t.Fatalf("small model: %+v %v", small, err)
	}
	huge, err := m.PlanPull(ctx, reg.Name("tofu/huge:1"))
	if err != nil || !huge.TooLarge || huge.Bytes != 1<<50 || !strings.Contains(huge.Note, "1125.9 TB download") || !strings.Contains(huge.Note, "this machine has") {
		t.Fatalf("huge model: %+v %v", huge, err)
	}
	var le *llm.Error
	if _, err := m.PlanPull(ctx, reg.Name("tofu/none:1")); !errors.As(err, &le) || le.Kind != llm.ErrModelNotFound {
		t.Fatalf("unknown model: %v", err)
	}
	for _, bad := range []string{"", "two words", "a/b/c/d/e"} {
		if _, err := m.PlanPull(ctx, bad); !errors.As(err, &le) || le.Kind != llm.ErrBadRequest {
			t.Fatalf("name %q: %v", bad, err)
		}
		if err := m.Pull(ctx, bad, 0, func(manage.Progress) { t.Fatal("progress for a bad name") }); !errors.As(err, &le) || le.Kind != llm.ErrBadRequest {
			t.Fatalf("pull %q: %v", bad, err)
		}
	}
}
