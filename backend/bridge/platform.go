// Package bridge lets people reach Tofu from the chat apps they already use: one conversation
// per chat thread or direct message, mapped to a session, its turns run by the session runner.
package bridge

import (
	"context"
	"errors"
	"time"
)

// Incoming is one message (or a button press) a platform delivers.
type Incoming struct {
	// ID is the platform's id of the message, unique within the bridge: the bridge records the
	// ids it handled so a message delivered again after a restart is not answered twice.
	ID string
	// Chat is the conversation: a room, a chat, a channel's thread, a direct message.
	Chat string
	// User is the sender's id, as the allow-list names it.
	User string
	Text string
	// Press is a button the user pressed under an approval question: "yes" or "no" and the
	// approval's call id in Call. Text is empty then.
	Press, Call string
	// Cursor is where the platform's stream resumes after this message (a sync token, an
	// update offset; "" when the platform keeps none). The bridge stores it once the message
	// is handled and passes it back to Listen after a restart.
	Cursor string
	// Time is when the platform received it (zero: unknown).
	Time time.Time
	// Files are what the message carries (documents, images, voice notes); Text is then their
	// caption, if any.
	Files []File
}

// File is a file sent in a chat, fetched only once its sender is known to be allowed.
type File struct {
	Name string
	Size int // as the platform says it (0: not said)
	// Fetch downloads it; more than limit bytes is an error.
	Fetch func(ctx context.Context, limit int) ([]byte, error)
}

// FileSender is a platform that can send a file into a chat (/file).
type FileSender interface {
	SendFile(ctx context.Context, chat, name string, data []byte) (string, error)
}

// Button is a choice under a message, for platforms that have buttons.
type Button struct {
	Label string
	Press string // "yes" or "no": what Incoming.Press carries back
	Call  string // the approval's call id, carried back in Incoming.Call
}

// Outgoing is a message the bridge sends.
type Outgoing struct {
	Text string
	// Key is the same for every attempt at sending the same message: a platform that takes an
	// idempotency key (Matrix's transaction id) sends it once whatever happens in between.
	Key     string
	Buttons []Button
}

// Platform is one chat service, spoken to without a public address (a sync loop, long
// polling, a socket the client opens).
type Platform interface {
	// Name is the platform's name: matrix, telegram, slack, feishu.
	Name() string
	// Self is the bot's own user id (its own messages are not answered).
	Self() string
	// Listen delivers messages in order from cursor ("" : from now) until ctx ends or the
	// connection fails; deliver returning an error stops it. A platform that retries by
	// itself says so through its error only when it gives up.
	Listen(ctx context.Context, cursor string, deliver func(Incoming) error) error
	// Send posts a message in chat and returns its id.
	Send(ctx context.Context, chat string, m Outgoing) (string, error)
	// Edit replaces the text of the message id in chat (ErrNoEdit: the platform cannot).
	Edit(ctx context.Context, chat, id, text string) error
}

// ErrNoEdit means the platform cannot edit a sent message: the reply is sent once, whole.
var ErrNoEdit = errors.New("this platform cannot edit messages")

// RateLimited is a platform's "slow down": retry after After.
type RateLimited struct {
	After time.Duration
	Err   error
}

func (e *RateLimited) Error() string {
	return "rate limited (retry after " + e.After.String() + "): " + e.Err.Error()
}

func (e *RateLimited) Unwrap() error { return e.Err }
