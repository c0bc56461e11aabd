package cli

import (
	"errors"
	"fmt"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/usersock"
)

// The desk commands (`tofu sessions show`, `tofu checkpoints`) read or act on one session's
// log. Beside a running Tofu they are forwarded to it over the command socket; the instance
// answers with the same function a local command runs (answerDesk), on its own store.

// deskOp names what a desk request asks.
type deskOp string

const (
	deskShow deskOp = "show" // the session's info and whole log
)

// deskRequest is one desk command.
type deskRequest struct {
	Op      deskOp `json:"op"`
	Session string `json:"session"`
}

// deskAnswer is what a desk command gets back.
type deskAnswer struct {
	Info   store.SessionInfo `json:"info"`
	Events []store.Event     `json:"events,omitempty"`
}

// deskCall runs req here, or in the running Tofu when there is one.
func deskCall(req deskRequest) (deskAnswer, error) {
	st, inst, err := attach()
	if err != nil {
		return deskAnswer{}, err
	}
	if inst != nil {
		return forwardDesk(inst, req)
	}
	defer st.Close()
	return answerDesk(st, req)
}

// answerDesk answers req on st (a local command's store, or the instance's).
func answerDesk(st *store.Store, req deskRequest) (deskAnswer, error) {
	info, err := st.Session(req.Session)
	if err != nil {
		return deskAnswer{}, fmt.Errorf("no conversation %q (tofu sessions search finds one): %w", req.Session, err)
	}
	switch req.Op {
	case deskShow:
		evs, err := st.Events(req.Session)
		return deskAnswer{Info: info, Events: evs}, err
	}
	return deskAnswer{}, fmt.Errorf("bad request: unknown desk operation %q", req.Op)
}

// forwardDesk asks the running Tofu behind c to answer req.
func forwardDesk(c *usersock.Conn, req deskRequest) (deskAnswer, error) {
	defer c.Close()
	if err := c.Send(forwardRequest{Version: forwardVersion, Tofu: Version, Desk: &req}); err != nil {
		return deskAnswer{}, err
	}
	var f forwardOutput
	if err := c.Recv(&f); err != nil {
		return deskAnswer{}, fmt.Errorf("the running Tofu closed the connection before answering: %w", err)
	}
	if f.Error != nil {
		return deskAnswer{}, f.Error.err()
	}
	if f.Desk == nil {
		return deskAnswer{}, errors.New("the running Tofu answered something else than the command")
	}
	return *f.Desk, nil
}

// desk answers a forwarded desk command on the instance's store.
func (in *instance) desk(req deskRequest) (deskAnswer, error) {
	return answerDesk(in.st, req)
}
