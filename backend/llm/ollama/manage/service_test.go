package manage

import (
	"errors"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// Settings → Local models on the scripted model server (it speaks Ollama's /api/tags, /api/show
// and /api/ps): the listed facts; a bad name refused before anything is sent; and with the
// server gone, Status says so and Start explains why it cannot start one.
func TestLocalModelsStatusAndRefusals(t *testing.T) {
	srv := scripted.New(t, scripted.DemoModel())
	base := srv.URL
	lm := NewService(ServiceOptions{BaseURL: func() (string, error) { return base, nil }, Emit: func(string, any) {}, Changed: func() {}})
	st := lm.Status()
	if !st.Running || st.Error != nil || st.Remote || st.BaseURL != srv.URL || st.Memory <= 0 {
		t.Fatalf("status: %+v", st)
	}
	if len(st.Models) == 0 || st.Models[0].Name == "" || st.Models[0].ContextLength == 0 || st.Models[0].CapabilitiesDerived {
		t.Fatalf("models: %+v", st.Models)
	}
	var le *llm.Error
	if err := lm.Pull("two words", 0); !errors.As(err, &le) || le.Kind != llm.ErrBadRequest {
		t.Fatalf("pull of a bad name: %v", err)
	}
	if _, err := lm.PlanPull(""); !errors.As(err, &le) || le.Kind != llm.ErrBadRequest {
		t.Fatalf("plan of no name: %v", err)
	}

	// The server is now at an address where nothing listens, and Ollama is not installed.
	base = "http://127.0.0.1:1"
	lm.o.Binary = func() string { return "" }
	st = lm.Status()
	if st.Running || st.Installed || st.Error == nil || st.Error.Kind != llm.ErrUnreachable || len(st.Models) != 0 {
		t.Fatalf("status with Ollama stopped: %+v", st)
	}
	if _, err := lm.Start(); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("start without Ollama: %v", err)
	}
}
