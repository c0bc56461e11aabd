package agent

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/llm/toolparse"
	"github.com/tofu-research/tofu/backend/store"
)

// MaxCorrections is how many replies in a row may print a tool call as text, each answered
// with a correction, before the turn ends with printed_call: a model that cannot call the
// tool properly after being told twice is not going to.
const MaxCorrections = 2

// printedCall decides a reply that made no tool call. Text that is recognisably a tool call
// (any format toolparse knows, complete or broken: the provider or the stream parser could not
// take it as a call) is never the answer: the model is asked to send it properly (a
// call_correction event, read as a user message) and again is true; past MaxCorrections in a
// row the turn ends with printed_call. Any other reply ends the turn as done.
func (a *Agent) printedCall(t *Turn, text string, corrections *int, step int) (end End, again bool) {
	p, ok := toolparse.FindPrinted(text, t.Tools.Specs())
	if !ok {
		return End{Reason: store.EndDone, Steps: step + 1}, false
	}
	*corrections++
	if *corrections > MaxCorrections {
		return End{Reason: store.EndPrintedCall, Steps: step + 1, Err: fmt.Errorf(
			"the model printed a tool call as text %d times in a row instead of calling the tool (%s: %s)",
			*corrections, p.Format, p.Reason)}, false
	}
	c := store.CallCorrection{Format: p.Format, Reason: p.Reason, Attempt: *corrections, Max: MaxCorrections,
		Text: fmt.Sprintf("Your last reply printed a tool call as text (%s format) and it was not run: %s. "+
			"To use a tool, send the call through the tool-calling interface, not as text in your reply; "+
			"to answer, reply in plain text without tool-call markup.", p.Format, p.Reason)}
	if _, err := t.j.record(store.Entry{Type: store.EventCallCorrection, Payload: c}); err != nil {
		return End{Reason: store.EndError, Steps: step + 1, Err: err}, false
	}
	return End{}, true
}
