package store

import "errors"

// Interruption causes: cancel a turn's (or a model call's) context with one of these
// (context.WithCancelCause) and the log says why it stopped. backend/agent names them too;
// they live here so that a package below the agent can stop a call it asked for.
var (
	ErrStoppedByUser = errors.New(string(InterruptUser))
	ErrShutdown      = errors.New(string(InterruptShutdown))
)
