package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// The demo tour: offered Tofu's coding tools (a conversation with a workspace), the demo model
// does real work instead of echoing, so a new user sees tool cards in the first minute. It
// reads the workspace's README, runs its script (inside the sandbox it stays in the folder,
// so it runs without asking; where there is no sandbox Tofu asks first), then says what came
// back. DemoFiles is the scratch
// workspace the app makes for it ("Try the demo").

// DemoFiles are the files of the demo's scratch workspace, by name.
var DemoFiles = map[string]string{
	"README.md": "# Tofu demo workspace\n\nA scratch folder made for the demo (the window's demo removes it when it stops).\n" +
		"`hello.sh` greets you and counts the files here.\n",
	"hello.sh": "#!/bin/sh\necho \"Hello from the demo workspace\"\necho \"files here: $(ls | wc -l)\"\n",
}

// WriteDemoFiles writes the demo's files into dir (made if missing), keeping any file of that
// name already there: the window's demo writes them into a scratch folder, `tofu dev
// fake-model --workspace DIR` into the user's.
func WriteDemoFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("demo workspace: %w", err)
	}
	for name, text := range DemoFiles {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("demo workspace: %w", err)
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("demo workspace: %w", err)
		}
	}
	return nil
}

// Demo tour calls, as the model sends them.
const (
	demoReadArgs = `{"reads":[{"path":"README.md"}]}`
	demoRunArgs  = `{"command":"sh hello.sh"}`
)

// offersTools reports whether req offers every named tool.
func offersTools(req llm.Request, names ...string) bool {
	for _, n := range names {
		found := false
		for _, t := range req.Tools {
			if t.Name == n {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// demoTour is the demo model's next step in a turn where tools are offered: which step it is
// follows from the tool results since the user's last message.
func demoTour(req llm.Request) Reply {
	var results []llm.Message
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != llm.RoleUser; i-- {
		if req.Messages[i].Role == llm.RoleTool {
			results = append([]llm.Message{req.Messages[i]}, results...)
		}
	}
	pace := 30 * time.Millisecond
	switch len(results) {
	case 0:
		return withThinking(req, Reply{Text: "I'm the demo's scripted model, but the tools are real. First I'll read the workspace's README.",
			ToolCalls: []llm.ToolCall{{Name: "read_files", Arguments: json.RawMessage(demoReadArgs)}}, TokenDelay: pace})
	case 1:
		return withThinking(req, Reply{Text: "The README says `hello.sh` greets and counts the files. I'll run it: commands run in Tofu's sandbox, where one that stays in this folder needs no approval:",
			ToolCalls: []llm.ToolCall{{Name: "run_command", Arguments: json.RawMessage(demoRunArgs)}}, TokenDelay: pace})
	}
	out := withoutFooter(results[len(results)-1].Content)
	var text string
	switch low := strings.ToLower(out); {
	case strings.Contains(low, "denied") || strings.Contains(low, "not allowed"):
		text = "You said no, so the script did not run: nothing runs or changes without your yes."
	case strings.Contains(out, "Hello from the demo workspace"):
		text = fmt.Sprintf("The script ran. It printed:\n\n```\n%s\n```\n\n", strings.TrimSpace(firstLines(out, 4))) +
			"In the sandbox a command can write only in this folder, never sees your keys and reaches no host: " +
			"what needs more (a host, a write elsewhere, a secret) asks you first."
	default:
		text = fmt.Sprintf("The command came back with:\n\n```\n%s\n```", strings.TrimSpace(firstLines(out, 6)))
	}
	text += "\n\nThat was the demo: a scripted model driving Tofu's real tools in a scratch folder. " +
		"For real answers, install a model (`ollama pull qwen3:8b`) or add a provider in Settings."
	return withThinking(req, Reply{Text: text, Chunks: 6, TokenDelay: pace})
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// withoutFooter drops the "[exit 0 · 10ms]" line Tofu ends a command's output with.
func withoutFooter(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "[exit ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
