// Package oneshot is the contract of a one-shot model call: one question, one reply, logged
// in a session like a chat turn (the question as the user's message, then the reply, its
// usage, the router's report and the error if it failed), without tools. My Day's prose, a
// paper's translation and a scheduled watch's check ask through it; agent.OneShot makes the
// call, so the packages that ask stay below the orchestration core.
package oneshot

import (
	"context"

	"github.com/tofu-research/tofu/backend/store"
)

// Call is one question to a model.
type Call struct {
	// Session is the session the call is logged in; "" creates one, titled Title and of
	// purpose Purpose, holding the question from its first write.
	Session string
	Title   string
	Purpose store.Purpose
	Model   string
	System  string
	Text    string // the question, logged as the user's message
	// Alone sends the question without the session's earlier messages (each batch of a
	// translation is a request of its own).
	Alone bool
}

// Reply is the model's answer and the session the call is logged in.
type Reply struct {
	Session string
	Text    string // the reply's text (a retried stream counts only its last attempt)
}

// Func makes a call. A call that did not end well returns the session (when one was made)
// and an error: the model's, the context's cause, or how it ended.
type Func func(ctx context.Context, c Call) (Reply, error)
