package cli

import (
	"github.com/tofu-research/tofu/backend/forward"
)

// The desk commands (`tofu sessions list|show`, `tofu checkpoints`, `tofu trace`) read or act
// on one session's log. Beside a running Tofu they are forwarded to it over the command
// socket; the instance answers with the same function a local command runs
// (forward.AnswerDesk), on its own store.

// deskCall runs req here, or in the running Tofu when there is one.
func deskCall(req forward.DeskRequest) (forward.DeskAnswer, error) {
	st, inst, err := attach()
	if err != nil {
		return forward.DeskAnswer{}, err
	}
	if inst != nil {
		return inst.Desk(req)
	}
	defer st.Close()
	return forward.AnswerDesk(st, req, func(string) bool { return false })
}
