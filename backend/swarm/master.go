package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// master runs a master round over the drained graph: it sees the dashboard and the results and
// either adds agents (a JSON object) or writes the synthesis. The last round must synthesize.
// A round whose answer asks for agents that do not validate is recorded with the error, and
// the next round is told so.
func (r *run) master(ctx context.Context) (more []AgentSpec, synthesis string, err error) {
	var complaint string
	for {
		r.mu.Lock()
		round, have := r.rounds+1, len(r.agents)
		r.mu.Unlock()
		last := round >= r.s.o.MaxRounds
		id, err := r.masterSession(ctx, round, last, complaint)
		if err != nil {
			return nil, "", err
		}
		end, err := r.s.o.Turns.Run(ctx, session.Request{Session: id, Model: r.model, WrapProvider: r.lim.wrap})
		if err != nil {
			return nil, "", fmt.Errorf("the swarm's master round: %w", err)
		}
		if ctx.Err() != nil {
			return nil, "", context.Cause(ctx)
		}
		text := lastAnswer(r.s.o.Store, id)
		if text == "" {
			text = fmt.Sprintf("The master round ended without an answer (%s).\n\n%s", end.Reason, r.resultsAsTheyStand(ctx))
		}
		add, asked := parseMore(text)
		note := "synthesis"
		if asked && !last {
			if err := validate(have, add); err != nil {
				complaint = err.Error()
				note = "refused: " + complaint
			} else {
				note = fmt.Sprintf("%d more agent(s)", len(add))
			}
		}
		if err := r.record(store.Swarm{Kind: store.SwarmKindRound, Text: note}); err != nil {
			return nil, "", err
		}
		r.mu.Lock()
		r.rounds++
		r.mu.Unlock()
		switch {
		case asked && !last && complaint == "":
			return add, "", nil
		case asked && !last:
			continue // told what was wrong in the next round
		case asked:
			text = r.fallbackSynthesis(ctx)
		}
		return nil, text, nil
	}
}

// masterSession creates the session of one master round: a plain conversation whose message
// is the dashboard and the results, within the budget of the master's model window.
func (r *run) masterSession(ctx context.Context, round int, last bool, complaint string) (string, error) {
	info, err := r.s.o.Store.CreateSession(fmt.Sprintf("master, round %d", round))
	if err != nil {
		return "", err
	}
	if _, err := r.s.o.Store.UpdateSession(info.ID, func(s *store.SessionInfo) {
		s.Purpose, s.Parent, s.ParentCall = store.PurposeSwarmAgent, r.parent, r.callID
	}); err != nil {
		return "", err
	}
	var b strings.Builder
	bud := r.budgetFor(ctx, r.model)
	fmt.Fprintf(&b, "You are the master of a team of agents. The task:\n%s\n\n", compress(r.goal(), bud.note()))
	b.WriteString(r.dashboard(bud.dashboard()))
	b.WriteString("\nResults:\n")
	per := r.masterShare(bud)
	r.mu.Lock()
	for i, a := range r.agents {
		if st := r.status[i]; st.State == store.SwarmDone {
			fmt.Fprintf(&b, "\n### Agent %d (%s): %s\n%s\n", i, a.Role, firstLine(a.Objective, 100), compress(st.Result, per))
		}
	}
	r.mu.Unlock()
	if complaint != "" {
		fmt.Fprintf(&b, "\nYour last request for agents was refused: %s.\n", complaint)
	}
	if last {
		b.WriteString("\nThis is the last round: write the final answer to the task from these results.")
	} else {
		fmt.Fprintf(&b, "\nIf something the task needs is missing or failed, answer with only a JSON object "+
			"{\"agents\": [{\"objective\", \"role\"?, \"context\"?, \"depends_on\"?}]}: new agents are numbered from %d on, "+
			"and depends_on may name any agent. Otherwise write the final answer to the task from these results.", len(r.agents))
	}
	if _, err := r.s.o.Store.Append(info.ID, store.EventUser, store.UserMessage{Text: b.String()}); err != nil {
		return "", err
	}
	return info.ID, nil
}

// masterShare is the tokens of each finished agent's result the master reads: all of them
// together within the inputs budget of its window.
func (r *run) masterShare(bud budget) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	done := 0
	for _, st := range r.status {
		if st.State == store.SwarmDone {
			done++
		}
	}
	return bud.share(done)
}

// dashboard is the table the master reads: each agent's role, state, time, tokens and key
// finding, within budget tokens (the findings shorten, then go, before rows are cut).
func (r *run) dashboard(budget int) string {
	var s string
	for _, width := range []int{100, 40, 0} {
		if s = r.dashboardWith(width); tokens.Count(s) <= budget {
			return s
		}
	}
	return cutProse(s, budget)
}

func (r *run) dashboardWith(width int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	b.WriteString("| # | role | state | time | tokens | depends on | key finding |\n|---|---|---|---|---|---|---|\n")
	for i, a := range r.agents {
		st := r.status[i]
		finding := ""
		if width > 0 {
			finding = firstLine(st.Result, width)
			if st.Error != "" {
				finding = "error: " + firstLine(st.Error, width)
			}
		}
		deps := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(a.DependsOn)), ","), "[]")
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %d | %s | %s |\n", i, a.Role, st.State,
			(time.Duration(st.DurationMS) * time.Millisecond).Round(100*time.Millisecond), st.Tokens, deps,
			strings.ReplaceAll(finding, "|", "/"))
	}
	return b.String()
}

// goal is the task the swarm serves: the parent's last message from the user.
func (r *run) goal() string {
	evs, err := r.s.o.Store.Events(r.parent)
	if err != nil {
		return "(unknown)"
	}
	goal := "(unknown)"
	for _, ev := range evs {
		var u store.UserMessage
		if ev.Type == store.EventUser && ev.Decode(&u) == nil {
			goal = u.Text
		}
	}
	return goal
}

// fallbackSynthesis is the answer when the last master round asked for more agents anyway.
func (r *run) fallbackSynthesis(ctx context.Context) string {
	return "The master asked for more agents after its last round; these are the results as they stand.\n\n" + r.resultsAsTheyStand(ctx)
}

// resultsAsTheyStand is the dashboard and the results, when no master answer can stand for them.
func (r *run) resultsAsTheyStand(ctx context.Context) string {
	bud := r.budgetFor(ctx, r.model)
	var b strings.Builder
	b.WriteString(r.dashboard(bud.dashboard()))
	per := r.masterShare(bud)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, a := range r.agents {
		if st := r.status[i]; st.State == store.SwarmDone {
			fmt.Fprintf(&b, "\n### Agent %d (%s)\n%s\n", i, a.Role, compress(st.Result, per))
		}
	}
	return b.String()
}

// parseMore reads a master's request for more agents: a JSON object with "agents", alone or in
// a code fence. Any other answer is the synthesis.
func parseMore(text string) ([]AgentSpec, bool) {
	s := strings.TrimSpace(text)
	s = strings.TrimPrefix(s, "```json")
	s = strings.TrimPrefix(s, "```")
	s = strings.TrimSuffix(s, "```")
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	var v struct {
		Agents []AgentSpec `json:"agents"`
	}
	if json.Unmarshal([]byte(s), &v) != nil || v.Agents == nil {
		return nil, false
	}
	return v.Agents, true
}

// lastAnswer is the last assistant text of a session.
func lastAnswer(st *store.Store, id string) string {
	evs, err := st.Events(id)
	if err != nil {
		return ""
	}
	text := ""
	for _, ev := range evs {
		var m store.AssistantMessage
		if ev.Type == store.EventAssistant && ev.Decode(&m) == nil && strings.TrimSpace(m.Text) != "" {
			text = m.Text
		}
	}
	return strings.TrimSpace(text)
}
