package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestSkillFolderDropEndToEnd drops a skill folder on Settings' Skills section in headless
// Chromium against `tofu serve` (frontend/e2e/skillfolder.e2e.mjs) and checks the files
// landed in the global skills folder, the script executable bit aside (a browser drop carries
// no modes).
func TestSkillFolderDropEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel())
	isolate(t, model.URL)
	_, url, stop := serveE2E(t, root)
	defer stop()
	runBrowser(t, root, url, "skillfolder.e2e.mjs", "skill-folder-drop.png")
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu", "skills", "release-notes")
	for name, want := range map[string]string{
		"references/style.md": "One line per change, newest first.\n",
		"scripts/collect.sh":  "#!/bin/sh\ngit log --oneline \"$1\"..HEAD\n",
	} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
}
