package session

import (
	"context"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/lang"
	"github.com/tofu-research/tofu/backend/store"
)

// translateTimeout bounds one message's translation: past it the original is used (and the
// user told), since a slow translation model must not hold the turn.
const translateTimeout = 2 * time.Minute

// translator is the pipeline of a translate-then-reason turn: the translation model of the
// settings (else the turn's), chunks cached in the store.
func (r *Runner) translator(p *plan) *lang.Pipeline {
	model := p.cfg.Models.Translation
	if model == "" {
		model = p.turn.Model
	}
	return &lang.Pipeline{
		Translator: lang.ModelTranslator{Provider: p.agent.Provider, Model: model},
		Cache:      lang.StoreCache{Store: r.o.Store}, Model: model, Timeout: translateTimeout,
	}
}

// translateIn translates the message the turn answers into English when it is in another
// language, and logs the translation (the model reads it instead of the user's text). It
// returns the user's language ("": English, unknown, or nothing to translate).
func (r *Runner) translateIn(ctx context.Context, p *plan) string {
	events := p.turn.Journal.Events()
	var user store.Event
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if ev.Type == store.EventMessageTranslation {
			var tr store.MessageTranslation
			if ev.Decode(&tr) == nil && tr.To == "en" && user.Seq == 0 {
				return tr.From // Continue or Retry of a message already translated
			}
		}
		if ev.Type == store.EventUser {
			user = ev
			break
		}
	}
	var u store.UserMessage
	if user.Seq == 0 || user.Decode(&u) != nil {
		return ""
	}
	from := lang.Detect(u.Text).Code
	if from == "" || from == "en" {
		return ""
	}
	tp := r.translator(p)
	res := tp.Translate(ctx, u.Text, from, "en")
	r.logTranslation(p, store.MessageTranslation{Of: user.Seq, From: from, To: "en", Text: res.Text, Model: tp.Model, Fallback: res.Fallback})
	return from
}

// translateOut translates the turn's final reply into the user's language and logs it.
func (r *Runner) translateOut(ctx context.Context, p *plan, to string, end agent.End) {
	if end.Reason != "done" {
		return
	}
	events := p.turn.Journal.Events()
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if ev.Type == store.EventUser {
			return
		}
		var a store.AssistantMessage
		if ev.Type != store.EventAssistant || ev.Decode(&a) != nil || a.Text == "" || a.Interrupted {
			continue
		}
		tp := r.translator(p)
		res := tp.Translate(ctx, a.Text, "en", to)
		r.logTranslation(p, store.MessageTranslation{Of: ev.Seq, From: "en", To: to, Text: res.Text, Model: tp.Model, Fallback: res.Fallback})
		return
	}
}

// logTranslation appends a translation and brings the turn's journal up to date with it. A
// translation that cannot be logged is lost, not fatal: the turn goes on in the original.
func (r *Runner) logTranslation(p *plan, tr store.MessageTranslation) {
	if _, err := r.o.Store.Append(p.turn.Session, store.EventMessageTranslation, tr); err == nil {
		_ = p.turn.Journal.Sync()
	}
}
