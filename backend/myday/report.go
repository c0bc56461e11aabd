// Package myday builds the daily report of the My Day view and `tofu myday`: what the day's
// conversations did, open threads and TODOs, papers read, tokens and cost by model. The
// figures come from the log; only the prose may come from the cheap model.
package myday

import "time"

// Report is one day's report, as stored (store key "myday/<date>") and shown.
type Report struct {
	Date      string       `json:"date"` // YYYY-MM-DD in the user's time zone
	Generated time.Time    `json:"generated"`
	Sessions  []SessionDay `json:"sessions"` // what was done, most active first
	Open      []OpenThread `json:"open"`     // conversations left waiting
	Todos     []string     `json:"todos"`
	Papers    []PaperRead  `json:"papers"`
	Models    []ModelUse   `json:"models"` // tokens and cost by model, most tokens first
	Total     ModelUse     `json:"total"`
	Summary   string       `json:"summary"` // prose: the cheap model's, or extractive
	Prose     ProseSource  `json:"prose"`
	Model     string       `json:"model,omitempty"`      // the model that wrote the prose
	Session   string       `json:"session,omitempty"`    // the session logging its call
	ProseNote string       `json:"prose_note,omitempty"` // why the model's prose was not used
}

// ProseSource says who wrote a report's summary and TODOs.
type ProseSource string

const (
	ProseModel      ProseSource = "model"      // the cheap model, from the figures
	ProseExtractive ProseSource = "extractive" // picked from the day's messages, deterministically
)

// SessionDay is what one conversation did that day.
type SessionDay struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Messages  int    `json:"messages"`   // the user's messages that day
	Replies   int    `json:"replies"`    // the model's replies that day
	ToolCalls int    `json:"tool_calls"` // calls the agent made that day
	First     string `json:"first"`      // the day's first user message, clipped
	Last      string `json:"last"`       // the day's last reply, clipped
}

// OpenThread is a conversation that the day left waiting on someone.
type OpenThread struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Why   string `json:"why"`
}

// PaperRead is a paper of the library worked with that day (its Q&A, report or translation).
type PaperRead struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	What  string `json:"what"` // "qa", "report", "translation", comma-separated
}

// ModelUse is the tokens and cost of a model's calls.
type ModelUse struct {
	Model   string  `json:"model"`
	Calls   int     `json:"calls"`
	Input   int     `json:"input_tokens"`
	Output  int     `json:"output_tokens"`
	CostUSD float64 `json:"cost_usd"`
}
