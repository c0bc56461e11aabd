package myday

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/wording"
)

// Log is what the report reads of the store.
type Log interface {
	Sessions() ([]store.SessionInfo, error)
	Events(session string) ([]store.Event, error)
}

// Day is the span [Start, End) of one calendar day in the user's time zone.
type Day struct {
	Date       string
	Start, End time.Time
}

// DayOf is the calendar day of t in loc.
func DayOf(t time.Time, loc *time.Location) Day {
	y, m, d := t.In(loc).Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, loc)
	return Day{Date: start.Format(time.DateOnly), Start: start, End: start.AddDate(0, 0, 1)}
}

// ParseDay reads a YYYY-MM-DD date in loc.
func ParseDay(date string, loc *time.Location) (Day, error) {
	t, err := time.ParseInLocation(time.DateOnly, date, loc)
	if err != nil {
		return Day{}, fmt.Errorf("date %q: want YYYY-MM-DD", date)
	}
	return DayOf(t, loc), nil
}

func (d Day) holds(t time.Time) bool { return !t.Before(d.Start) && t.Before(d.End) }

// Figures computes the report's figures for day from the log, with the extractive prose.
// papers names a paper of the library by id ("" when unknown). Sessions made for a purpose
// other than a conversation (the report's own, a swarm's agents) are left out, but their model
// calls are counted.
func Figures(log Log, day Day, papers func(id string) string) (Report, error) {
	infos, err := log.Sessions()
	if err != nil {
		return Report{}, fmt.Errorf("list sessions: %w", err)
	}
	r := Report{Date: day.Date, Prose: ProseExtractive}
	models := map[string]*ModelUse{}
	paperWork := map[string][]string{}
	for _, info := range infos {
		// A session whose last event is before the day has nothing of it.
		if info.Updated.Before(day.Start) || !info.Created.Before(day.End) {
			continue
		}
		evs, err := log.Events(info.ID)
		if err != nil {
			return Report{}, fmt.Errorf("read session %s: %w", info.ID, err)
		}
		sd, todos, used := sessionDay(info, evs, day)
		for _, u := range used {
			m := models[u.Model]
			if m == nil {
				m = &ModelUse{Model: u.Model}
				models[u.Model] = m
			}
			m.Calls++
			m.Input += u.InputTokens
			m.Output += u.OutputTokens
			m.CostUSD += u.CostUSD
		}
		if sd.Messages+sd.Replies == 0 {
			continue
		}
		switch {
		case info.Paper != "":
			if !slices.Contains(paperWork[info.Paper], string(info.Purpose)) {
				paperWork[info.Paper] = append(paperWork[info.Paper], string(info.Purpose))
			}
		case info.Purpose != "" || info.Parent != "":
			// A session a conversation or Tofu made for its own work (a swarm's sub-agents and
			// master rounds, this report's call, a translation, a scheduled poll): its calls
			// count above, but it is not a conversation of the user's.
		default:
			r.Sessions = append(r.Sessions, sd)
			r.Todos = append(r.Todos, todos...)
			if why := openReason(evs); why != "" {
				r.Open = append(r.Open, OpenThread{ID: info.ID, Title: sd.Title, Why: why})
			}
		}
	}
	sort.SliceStable(r.Sessions, func(i, j int) bool {
		return r.Sessions[i].Messages+r.Sessions[i].ToolCalls > r.Sessions[j].Messages+r.Sessions[j].ToolCalls
	})
	for id, what := range paperWork {
		title := ""
		if papers != nil {
			title = papers(id)
		}
		if title == "" {
			title = id
		}
		sort.Strings(what)
		r.Papers = append(r.Papers, PaperRead{ID: id, Title: title, What: strings.Join(what, ", ")})
	}
	sort.Slice(r.Papers, func(i, j int) bool { return r.Papers[i].Title < r.Papers[j].Title })
	for _, m := range models {
		r.Models = append(r.Models, *m)
		r.Total.Calls += m.Calls
		r.Total.Input += m.Input
		r.Total.Output += m.Output
		r.Total.CostUSD += m.CostUSD
	}
	sort.Slice(r.Models, func(i, j int) bool {
		a, b := r.Models[i], r.Models[j]
		if a.Input+a.Output != b.Input+b.Output {
			return a.Input+a.Output > b.Input+b.Output
		}
		return a.Model < b.Model
	})
	r.Total.Model = "total"
	r.Todos = dedup(r.Todos, 20)
	r.Summary = extractiveSummary(r)
	return r, nil
}

// sessionDay reads one session's events of the day: its counts, the TODO lines of its
// messages, and the usage of its calls.
func sessionDay(info store.SessionInfo, evs []store.Event, day Day) (SessionDay, []string, []llm.Usage) {
	sd := SessionDay{ID: info.ID, Title: info.Title}
	if sd.Title == "" {
		sd.Title = store.DefaultTitle
	}
	var todos []string
	var used []llm.Usage
	for _, e := range evs {
		if !day.holds(e.Time) {
			continue
		}
		switch e.Type {
		case store.EventUser:
			var u store.UserMessage
			if e.Decode(&u) == nil {
				sd.Messages++
				if sd.First == "" {
					sd.First = clip(u.Text, 160)
				}
				todos = append(todos, todoLines(u.Text)...)
			}
		case store.EventAssistant:
			var a store.AssistantMessage
			if e.Decode(&a) == nil {
				sd.Replies++
				sd.ToolCalls += len(a.ToolCalls)
				if strings.TrimSpace(a.Text) != "" {
					sd.Last = clip(a.Text, 200)
				}
				todos = append(todos, todoLines(a.Text)...)
			}
		case store.EventUsage:
			var u llm.Usage
			if e.Decode(&u) == nil {
				if u.Model == "" {
					u.Model = "unknown"
				}
				used = append(used, u)
			}
		}
	}
	return sd, todos, used
}

// openReason says why a conversation is left waiting, from its last events ("" when its
// last turn ended done).
func openReason(evs []store.Event) string {
	for i := len(evs) - 1; i >= 0; i-- {
		switch evs[i].Type {
		case store.EventUser:
			return "a message has no reply yet"
		case store.EventAssistant:
			return "" // a chat reply ends without a turn_end
		case store.EventApproval:
			var a store.Approval
			if evs[i].Decode(&a) == nil && a.Decision == "" {
				return "an approval is waiting"
			}
		case store.EventTurnEnd:
			var end store.TurnEnd
			if evs[i].Decode(&end) != nil || end.Reason == store.EndDone {
				return ""
			}
			if end.Detail != "" {
				return fmt.Sprintf("the last turn stopped (%s: %s)", end.Reason, clip(end.Detail, 100))
			}
			return fmt.Sprintf("the last turn stopped (%s)", end.Reason)
		}
	}
	return ""
}

// todoRE matches a line that states something left to do: a Markdown task box left open, a
// TODO or FIXME, a "next step" or "follow up" line.
var todoRE = regexp.MustCompile(`(?i)^\s*(?:[-*+]\s*\[ \]\s*|(?:[-*+]\s*)?(?:TODO|FIXME|next steps?|follow[- ]up)\s*[:：-]\s*)(.+)$`)

func todoLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if m := todoRE.FindStringSubmatch(line); m != nil {
			if t := strings.TrimSpace(m[1]); t != "" {
				out = append(out, clip(t, 200))
			}
		}
	}
	return out
}

// extractiveSummary is the prose written without a model: what each conversation started
// with, the busiest first.
func extractiveSummary(r Report) string {
	if len(r.Sessions) == 0 && len(r.Papers) == 0 {
		return "Nothing was done in Tofu this day."
	}
	var b strings.Builder
	b.WriteString(wording.Plural(len(r.Sessions), "conversation"))
	if len(r.Papers) > 0 {
		b.WriteString(" and " + wording.Plural(len(r.Papers), "paper"))
	}
	fmt.Fprintf(&b, "; %s tokens over %s.", wording.Thousands(r.Total.Input+r.Total.Output), wording.Plural(r.Total.Calls, "model call"))
	for i, s := range r.Sessions {
		if i == 5 {
			fmt.Fprintf(&b, "\n- and %d more", len(r.Sessions)-5)
			break
		}
		fmt.Fprintf(&b, "\n- %s: %s", s.Title, s.First)
	}
	return b.String()
}

func dedup(xs []string, max int) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, x := range xs {
		k := strings.ToLower(x)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, x)
		if len(out) == max {
			break
		}
	}
	return out
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
