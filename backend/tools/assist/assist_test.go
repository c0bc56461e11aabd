package assist

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
)

type fakeAsker struct {
	got    tools.Question
	answer string
}

func (f *fakeAsker) Ask(ctx context.Context, q tools.Question) (string, error) {
	f.got = q
	if f.answer == "" {
		<-ctx.Done() // the user never answers; the turn is interrupted
		return "", ctx.Err()
	}
	return f.answer, nil
}

func run(t *testing.T, ctx context.Context, tool tools.Tool, args string) (tools.Result, error) {
	t.Helper()
	return tool.Run(ctx, tools.Call{ID: "call-7", Name: tool.Spec().Name, Arguments: json.RawMessage(args)})
}

func TestAskHuman(t *testing.T) {
	t.Parallel()
	a := &fakeAsker{answer: "postgres"}
	tool := NewAskHuman(a)
	if tool.ReadOnly() {
		t.Error("ask_human blocks on a person: it must run in order, not in parallel")
	}
	res, err := run(t, context.Background(), tool, `{"question":"Which DB?","options":"sqlite"}`)
	if err != nil || res.Text != "The user answered: postgres" || res.IsError {
		t.Fatalf("%+v %v", res, err)
	}
	if a.got.CallID != "call-7" || a.got.Text != "Which DB?" || len(a.got.Options) != 1 {
		t.Errorf("question %+v", a.got)
	}
	if m := res.Meta.(AskMeta); m.Answer != "postgres" {
		t.Errorf("meta %+v", m)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(t, ctx, NewAskHuman(&fakeAsker{}), `{"question":"?"}`); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v", err)
	}
	res, _ = run(t, context.Background(), NewAskHuman(nil), `{"question":"?"}`)
	if !res.IsError || !strings.Contains(res.Text, "headless") {
		t.Errorf("no asker: %q", res.Text)
	}
	res, _ = run(t, context.Background(), tool, `{"question":" "}`)
	if !res.IsError {
		t.Error("empty question accepted")
	}
}

type fakeStore map[string]string

func (s fakeStore) Get(ref string) (string, error) {
	if v, ok := s[ref]; ok {
		return v, nil
	}
	return "", errors.New("unknown ref")
}

func TestReadResult(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 10 {
		if i%3 == 0 {
			lines = append(lines, "FAIL case", "")
		}
		lines = append(lines, "ok")
	}
	tool := NewReadResult(fakeStore{"r1": strings.Join(lines, "\n") + "\n"})
	cases := map[string]string{
		`{"ref":"r1","start":2,"end":4}`: "== r1 lines 2-4 of 18 ==\n2\t\n3\tok\n4\tok\n",
		`{"ref":"r1","grep":"fail"}`:     "== r1: 4 lines match \"fail\" ==\n1\tFAIL case\n6\tFAIL case\n",
	}
	for args, want := range cases {
		res, err := run(t, context.Background(), tool, args)
		if err != nil || res.IsError || !strings.HasPrefix(res.Text, want) {
			t.Errorf("%s: got %q, want prefix %q", args, res.Text, want)
		}
	}
	for args, want := range map[string]string{
		`{"ref":"r9"}`:            `no stored result "r9" (unknown ref)`,
		`{"ref":"r1","start":99}`: "start 99 is past the end (18 lines)",
		`{"ref":"r1","grep":"("}`: "invalid grep regex",
	} {
		res, _ := run(t, context.Background(), tool, args)
		if !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%s: %q", args, res.Text)
		}
	}
	if res, _ := run(t, context.Background(), NewReadResult(nil), `{"ref":"r1"}`); !res.IsError {
		t.Error("nil store")
	}
}
