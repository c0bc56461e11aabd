package session

import (
	"os"
	"path/filepath"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// CommandSandbox is the boundary the settings and this machine give the agent's commands:
// the sandbox, with the secret places of the user's home hidden and a cache of its own for
// the toolchains; nil when the settings run commands unconfined or no sandbox can be had
// (then the approval policy asks about every command: see CommandBoundary).
func CommandSandbox(cfg config.Config) *sandbox.Boundary {
	if cfg.Commands == config.CommandsUnconfined || !sandbox.Detect().Available {
		return nil
	}
	home, _ := os.UserHomeDir()
	b := &sandbox.Boundary{Hidden: permission.SecretPlaces(home)}
	if dir, err := os.UserCacheDir(); err == nil {
		b.Cache = filepath.Join(dir, "tofu", "sandbox")
	}
	return b
}

// CommandBoundary is what the approval policy must decide about commands under cfg on this
// machine: inside the sandbox only crossings ask; with no sandbox every command asks; a
// person's choice of unconfined commands keeps the static policy.
// The string says why there is no sandbox, for BoundaryNone.
func CommandBoundary(cfg config.Config) (permission.Boundary, string) {
	st := sandbox.Detect()
	switch {
	case cfg.Commands == config.CommandsUnconfined:
		return permission.BoundaryUnconfined, ""
	case st.Available:
		return permission.BoundarySandbox, ""
	}
	return permission.BoundaryNone, st.Why
}
