package forward

import (
	"errors"
	"fmt"

	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/usersock"
)

// Client is the command line's connection to a running Tofu: one command, then it is closed.
type Client struct {
	conn  *usersock.Conn
	build string // this tofu's version, for the instance's version message
}

// Attach opens the database in dataDir for a command that reads or writes sessions; when a
// running Tofu (the window or `tofu serve`) holds it, it connects to that Tofu's command socket
// instead, and the command is forwarded there. One of the two is returned. build is this
// tofu's version. warn hears of a stale socket that could not be removed.
func Attach(dataDir, build string, warn func(error)) (*store.Store, *Client, error) {
	st, err := store.Open(dataDir)
	if err == nil {
		// Nothing else holds the database, so no Tofu listens: a socket left there is a
		// crashed one's.
		if err := usersock.RemoveStale(SocketPath(dataDir)); err != nil {
			warn(err)
		}
		return st, nil, nil
	}
	if !errors.Is(err, store.ErrLocked) {
		return nil, nil, err
	}
	c, derr := usersock.Dial(SocketPath(dataDir))
	if derr == nil {
		c.SetReadLimit(outputLimit)
		return nil, &Client{conn: c, build: build}, nil
	}
	if errors.Is(derr, usersock.ErrNoListener) {
		return nil, nil, fmt.Errorf("Tofu is already running (its database %s is open in another process that takes no commands, such as another `tofu run`); wait for it, or quit it first", dataDir)
	}
	return nil, nil, fmt.Errorf("Tofu is already running (its database %s is open in another process), and its command socket cannot be used: %w", dataDir, derr)
}

// Close closes the connection (the instance stops a turn it was running for it).
func (c *Client) Close() error { return c.conn.Close() }

// request sends the command's request, in this protocol's version.
func (c *Client) request(r Request) error {
	r.Version, r.Tofu = Version, c.build
	return c.conn.Send(r)
}

// answer sends r and reads the one frame that answers it (its error returned as one).
func (c *Client) answer(r Request) (Output, error) {
	defer c.Close()
	if err := c.request(r); err != nil {
		return Output{}, err
	}
	var f Output
	if err := c.conn.Recv(&f); err != nil {
		return Output{}, fmt.Errorf("the running Tofu closed the connection before answering: %w", err)
	}
	if f.Error != nil {
		return Output{}, f.Error.Err()
	}
	return f, nil
}

// Search searches the running Tofu's history index (tofu sessions search).
func (c *Client) Search(query string, limit int) ([]history.Match, error) {
	f, err := c.answer(Request{Search: &SearchRequest{Query: query, Limit: limit}})
	if err == nil && f.Found == nil {
		err = errors.New("the running Tofu answered something else than the search")
	}
	if err != nil {
		return nil, err
	}
	return f.Found.Matches, nil
}

// Desk asks the running Tofu to answer req.
func (c *Client) Desk(req DeskRequest) (DeskAnswer, error) {
	f, err := c.answer(Request{Desk: &req})
	if err == nil && f.Desk == nil {
		err = errors.New("the running Tofu answered something else than the command")
	}
	if err != nil {
		return DeskAnswer{}, err
	}
	return *f.Desk, nil
}

// Papers runs a library command (add, open, list) in the running Tofu: the papers it added or
// listed.
func (c *Client) Papers(req PaperRequest) ([]library.Info, error) {
	f, err := c.answer(Request{Paper: &req})
	if err == nil && f.Papers == nil {
		err = errors.New("the running Tofu answered something else than the library")
	}
	if err != nil {
		return nil, err
	}
	return f.Papers.Papers, nil
}
