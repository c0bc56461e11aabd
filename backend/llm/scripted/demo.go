package scripted

import (
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// DemoModelName is the model the demo script serves.
const DemoModelName = "tofu-test:latest"

// DemoModel is a small model with tools and thinking, for the demo script.
func DemoModel() Model {
	return Model{
		Name:          DemoModelName,
		ContextLength: 8192,
		Capabilities:  []llm.Capability{llm.CapTools, llm.CapThinking},
		Family:        "llama",
		ParameterSize: "1B",
		Size:          1 << 30,
	}
}

// ScriptDemo installs the script the app's end-to-end test and `llmtestd` use: a message
// containing "bench" streams 1,000 words at 100 per second; one containing "long" streams a
// long reply slowly (so a UI can stop it); in a turn offered the coding tools, any other
// message starts the demo tour (demotour.go: a read, then a command that asks for approval);
// without tools it is echoed in a few chunks with some Markdown and a Go code block; the paper
// reader's question is answered with what the demo is and the passage retrieved (demopaper.go).
// With thinking on, a short reasoning comes first.
func (s *Server) ScriptDemo() *Server {
	// First: the paper reader's question (its passages may hold "long" or "bench").
	s.On(asksAboutAPaper).ReplyFunc(demoPaperAnswer)
	// "bench": 1,000 words at 100 per second, one word per chunk, to measure the UI's cost per token.
	s.OnUser("bench").ReplyFunc(func(req llm.Request) Reply {
		return Reply{Text: LongText(1000), TokenDelay: 10 * time.Millisecond}
	})
	s.OnUser("long").ReplyFunc(func(req llm.Request) Reply {
		return withThinking(req, Reply{Text: LongText(400), TokenDelay: 50 * time.Millisecond})
	})
	s.DefaultFunc(func(req llm.Request) Reply {
		if offersTools(req, "read_files", "run_command") {
			return demoTour(req)
		}
		return withThinking(req, Reply{Text: EchoText(LastUser(req)), Chunks: 6, TokenDelay: 30 * time.Millisecond})
	})
	return s
}

func withThinking(req llm.Request, rep Reply) Reply {
	if req.Think {
		rep.Reasoning = "The user wants an answer. I will reply with the scripted text."
	}
	return rep
}

// EchoText is the demo script's answer to msg.
func EchoText(msg string) string {
	return fmt.Sprintf("Hello from the scripted model. You said: %s\n\n"+
		"Here is **some Markdown**, a list:\n\n- one\n- two\n\nand a code block:\n\n"+
		"```go\nfunc main() {\n\tfmt.Println(\"hello, tofu\")\n}\n```\n", msg)
}

// LongText returns a deterministic text of n words in short Markdown paragraphs.
func LongText(n int) string {
	words := strings.Fields("the scripted model keeps talking so that a user interface can show a long " +
		"streaming answer and test that the stop button cancels it promptly while tokens arrive")
	var b strings.Builder
	for i := range n {
		switch {
		case i == 0:
		case i%40 == 0:
			b.WriteString(".\n\n")
		default:
			b.WriteByte(' ')
		}
		b.WriteString(words[i%len(words)])
	}
	b.WriteString(".\n")
	return b.String()
}

// ListenDemo serves the demo model at addr (port 0 picks one) with the demo script, or with
// the JSON script at scriptPath when it is set: what `llmtestd` and `tofu dev fake-model` run.
func ListenDemo(addr string, contextLength int, scriptPath string) (*Server, error) {
	m := DemoModel()
	if contextLength > 0 {
		m.ContextLength = contextLength
	}
	var sc *Script
	if scriptPath != "" {
		var err error
		if sc, err = LoadScriptFile(scriptPath); err != nil {
			return nil, err
		}
	}
	srv, err := Listen(addr, m)
	if err != nil {
		return nil, err
	}
	if sc != nil {
		return srv.Load(sc), nil
	}
	return srv.ScriptDemo(), nil
}
