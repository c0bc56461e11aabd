package myday

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/store"
)

// Store is what generating and keeping reports needs of the store.
type Store interface {
	Log
	PutJSON(key string, v any) error
	GetJSON(key string, v any) (bool, error)
	ListJSON(prefix string, fn func(name string, raw json.RawMessage) error) error
}

// Options wire a Generator.
type Options struct {
	Store Store
	// Cheap names the cheap model ("" when none is configured: the prose is extractive) and
	// Call asks it (agent.OneShot; nil: the prose is extractive).
	Cheap func() string
	Call  oneshot.Func
	// Paper names a paper of the library by id (nil: ids are shown).
	Paper func(id string) string
	Now   func() time.Time
	Loc   *time.Location
}

// Generator builds, stores and lists the reports.
type Generator struct{ o Options }

// New returns a Generator; Now and Loc default to the wall clock and the local zone.
func New(o Options) *Generator {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	if o.Cheap == nil {
		o.Cheap = func() string { return "" }
	}
	return &Generator{o: o}
}

// Today is the current day in the user's zone.
func (g *Generator) Today() Day { return DayOf(g.o.Now(), g.o.Loc) }

// Day reads a date ("" for today).
func (g *Generator) Day(date string) (Day, error) {
	if date == "" {
		return g.Today(), nil
	}
	return ParseDay(date, g.o.Loc)
}

func key(date string) string { return "myday/" + date }

// Generate builds the report of day, has the cheap model write its prose when one is
// configured (the call logged in a session of purpose myday; extractive prose when it fails,
// with the reason), stores it and returns it.
func (g *Generator) Generate(ctx context.Context, day Day) (Report, error) {
	r, err := Figures(g.o.Store, day, g.o.Paper)
	if err != nil {
		return Report{}, err
	}
	r.Generated = g.o.Now()
	if model := g.o.Cheap(); model != "" && g.o.Call != nil && len(r.Sessions)+len(r.Papers) > 0 {
		if err := g.prose(ctx, &r, model); err != nil {
			r.ProseNote = "the cheap model's summary failed, so this one is extracted: " + err.Error()
		}
	}
	if err := g.o.Store.PutJSON(key(r.Date), r); err != nil {
		return Report{}, fmt.Errorf("store the report of %s: %w", r.Date, err)
	}
	return r, nil
}

// prose asks model for the summary and TODOs, in a session of its own.
func (g *Generator) prose(ctx context.Context, r *Report, model string) error {
	reply, err := g.o.Call(ctx, oneshot.Call{Title: "My Day " + r.Date, Purpose: store.PurposeMyDay,
		Model: model, System: assets.Prompt("myday"), Text: facts(*r)})
	if reply.Session != "" {
		r.Session, r.Model = reply.Session, model
	}
	if err != nil {
		return err
	}
	summary, todos := splitProse(reply.Text)
	if summary == "" {
		return fmt.Errorf("the reply had no summary")
	}
	r.Summary, r.Prose = summary, ProseModel
	if todos != nil {
		r.Todos = todos
	}
	return nil
}

// facts is what the model is told: the figures, as plain text.
func facts(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Date: %s\n\nConversations:\n", r.Date)
	for _, s := range r.Sessions {
		fmt.Fprintf(&b, "- %q: %d messages, %d tool calls. Began: %s", s.Title, s.Messages, s.ToolCalls, s.First)
		if s.Last != "" {
			fmt.Fprintf(&b, " Last reply: %s", s.Last)
		}
		b.WriteString("\n")
	}
	if len(r.Open) > 0 {
		b.WriteString("\nOpen threads:\n")
		for _, o := range r.Open {
			fmt.Fprintf(&b, "- %q: %s\n", o.Title, o.Why)
		}
	}
	if len(r.Todos) > 0 {
		b.WriteString("\nTODO lines found:\n")
		for _, t := range r.Todos {
			fmt.Fprintf(&b, "- %s\n", t)
		}
	}
	if len(r.Papers) > 0 {
		b.WriteString("\nPapers:\n")
		for _, p := range r.Papers {
			fmt.Fprintf(&b, "- %s (%s)\n", p.Title, p.What)
		}
	}
	fmt.Fprintf(&b, "\nTokens: %d in, %d out over %d calls.\n", r.Total.Input, r.Total.Output, r.Total.Calls)
	return b.String()
}

// splitProse reads the reply: the text before a "TODO:" line is the summary, the list items
// after it the TODOs (nil when there is no TODO part).
func splitProse(text string) (string, []string) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		h := strings.ToUpper(strings.Trim(strings.TrimSpace(l), "#*: "))
		if h != "TODO" && h != "TODOS" {
			continue
		}
		todos := []string{}
		for _, t := range lines[i+1:] {
			t = strings.TrimSpace(t)
			if item := strings.TrimSpace(strings.TrimLeft(t, "-*+ ")); item != "" && item != t {
				todos = append(todos, item)
			}
		}
		return strings.TrimSpace(strings.Join(lines[:i], "\n")), todos
	}
	return strings.TrimSpace(text), nil
}

// Get returns the stored report of date, if there is one.
func (g *Generator) Get(date string) (Report, bool, error) {
	var r Report
	ok, err := g.o.Store.GetJSON(key(date), &r)
	return r, ok, err
}

// Past lists the dates of the stored reports, newest first.
func (g *Generator) Past() ([]string, error) {
	var out []string
	err := g.o.Store.ListJSON("myday/", func(name string, _ json.RawMessage) error {
		out = append(out, strings.TrimPrefix(name, "myday/"))
		return nil
	})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}
