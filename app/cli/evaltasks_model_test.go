package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
)

// Without --model, the report names the settings' main model (it printed model "").
func TestEvalTasksConfigNamesTheMainModel(t *testing.T) {
	isolate(t, "http://127.0.0.1:1")
	if _, err := config.Open(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")).Update(func(c *config.Config) error {
		c.Models.Main = "qwen3:8b"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := (TasksOptions{}).Config(mainModel("")).Model; got != "qwen3:8b" {
		t.Fatalf("model %q", got)
	}
	if got := (TasksOptions{Model: "other"}).Config(mainModel("other")).Model; got != "other" {
		t.Fatalf("with --model: %q", got)
	}
}
