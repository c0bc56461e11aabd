package cli

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// A reply whose first attempt broke mid-stream: the void text is followed by a note saying
// the call was retried, and the complete reply starts on its own line (it followed the
// broken text with no marker, as if one reply).
func TestChatMarksARetriedAttempt(t *testing.T) {
	st, srv := runEnv(t)
	var n atomic.Int32
	srv.DefaultFunc(func(llm.Request) scripted.Reply {
		if n.Add(1) == 1 {
			return scripted.Reply{Text: "the first attempt breaks here and here", Fault: scripted.FaultReset, After: 3}
		}
		return scripted.Reply{Text: "The complete reply."}
	})
	var out, errOut bytes.Buffer
	if err := Chat(st, ChatOptions{Prompt: "hello"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "[connection dropped, retrying: ") {
		t.Fatalf("no retry note:\n%s", errOut.String())
	}
	if got := out.String(); !strings.HasSuffix(got, "The complete reply.\n") || (got != "The complete reply.\n" && !strings.HasSuffix(got, "\nThe complete reply.\n")) {
		t.Fatalf("stdout %q", got)
	}
}

// A reply from the fallback model is announced, as tofu run does.
func TestChatSaysWhenAFallbackAnswers(t *testing.T) {
	st, srv := runEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	if _, err := config.Open(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")).Update(func(c *config.Config) error {
		c.Providers = []config.Provider{{Name: "main", Type: config.TypeOllama, BaseURL: dead}, {Name: "backup", Type: config.TypeOllama, BaseURL: srv.URL}}
		c.Fallback = []string{"backup/" + scripted.DemoModelName}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	srv.Default(scripted.Reply{Text: "From the backup."})
	var out, errOut bytes.Buffer
	if err := Chat(st, ChatOptions{Prompt: "hello", Model: scripted.DemoModelName}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "[falling back from main/"+scripted.DemoModelName+" to backup/"+scripted.DemoModelName) || out.String() != "From the backup.\n" {
		t.Fatalf("stdout %q, stderr:\n%s", out.String(), errOut.String())
	}
}

// `tofu chat "…" | head -1`: the reader goes away after the first piece of the reply; the
// writes after that fail, and the reply is still recorded whole (the first such write killed
// the process, and the log held only the user message). The first attempt breaks after the
// reader has gone, so the retry's note is written for certain before the reply is complete.
func TestChatKeepsTheReplyWhenItsOutputCloses(t *testing.T) {
	srv := scripted.New(t, scripted.DemoModel())
	isolate(t, srv.URL)
	hold := make(chan struct{})
	var n atomic.Int32
	srv.DefaultFunc(func(llm.Request) scripted.Reply {
		if n.Add(1) == 1 {
			return scripted.Reply{Text: "partial words lost", Hold: hold, Fault: scripted.FaultReset, After: 2}
		}
		return scripted.Reply{Text: "Kept whole."}
	})
	data := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIHelper$")
	cmd.Env = append(os.Environ(), "TOFU_CLI_HELPER=1", "XDG_DATA_HOME="+data, "TOFU_CLI_ARGS=chat\x1fhello")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	first := make([]byte, 64)
	k, err := r.Read(first) // the reply's first piece is on its way: then the reader leaves
	r.Close()
	close(hold)
	if err != nil || !strings.HasPrefix(string(first[:k]), "partial") {
		t.Fatalf("read %q, %v", first[:k], err)
	}
	runErr := cmd.Wait()
	st, err := store.Open(filepath.Join(data, "tofu"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.Sessions()
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v, %v (run: %v)\n%s", list, err, runErr, stderr.String())
	}
	var reply store.AssistantMessage
	evs, _ := st.Events(list[0].ID)
	for _, ev := range evs {
		if ev.Type == store.EventAssistant {
			ev.Decode(&reply)
		}
	}
	if reply.Text != "Kept whole." {
		t.Fatalf("the reply was not recorded: events %s (run: %v)\n%s", eventTypes(t, st, list[0].ID), runErr, stderr.String())
	}
}

// A new conversation exists only with its message (created with it in one write): a kill
// before the message was recorded left an empty conversation behind.
func TestChatNeverLeavesAnEmptyConversation(t *testing.T) {
	st, srv := runEnv(t)
	srv.Default(scripted.Reply{Text: "Hi."})
	var empty []string
	defer st.WatchSessions(func(c store.SessionChange) {
		if !c.Deleted && c.Info.Events == 0 {
			empty = append(empty, c.Info.ID)
		}
	})()
	var out, errOut bytes.Buffer
	if err := Chat(st, ChatOptions{Prompt: "hello there"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if len(empty) != 0 || out.String() != "Hi.\n" {
		t.Fatalf("empty sessions %v, stdout %q", empty, out.String())
	}
	info, err := st.Session(onlySession(t, st))
	if err != nil || info.Title != "hello there" {
		t.Fatalf("session %+v, %v", info, err)
	}
}

// Beside a running Tofu, `tofu chat` shows the retried attempt as it does alone.
func TestForwardChatMarksARetriedAttempt(t *testing.T) {
	srv := llmtestServer(t)
	var n atomic.Int32
	srv.DefaultFunc(func(llm.Request) scripted.Reply {
		if n.Add(1) == 1 {
			return scripted.Reply{Text: "the first attempt breaks here and here", Fault: scripted.FaultReset, After: 3}
		}
		return scripted.Reply{Text: "The complete reply."}
	})
	data := t.TempDir()
	startServe(t, data)
	out, errOut, code := tofuAt(t, data, "", "chat", "hello")
	if code != 0 || !strings.Contains(errOut, "[connection dropped, retrying: ") || !strings.HasSuffix(out, "The complete reply.\n") {
		t.Fatalf("exit %d\nstdout %q\nstderr:\n%s", code, out, errOut)
	}
	// The message was sent once.
	chats := srv.Chats()
	users := 0
	for _, m := range chats[len(chats)-1].Request.Messages {
		if m.Role == llm.RoleUser {
			users++
		}
	}
	if users != 1 {
		t.Fatalf("the last request holds %d user messages", users)
	}
}
