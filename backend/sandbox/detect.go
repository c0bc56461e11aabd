package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Status says whether commands can be sandboxed here, with what, or why not.
type Status struct {
	Available bool `json:"available"`
	// Mechanism names what enforces the boundary ("bubblewrap 0.8.0").
	Mechanism string `json:"mechanism,omitempty"`
	// Why says, for a person, why no sandbox can be had and what to do.
	Why   string `json:"why,omitempty"`
	bwrap string
}

var (
	detectOnce sync.Once
	detected   Status
)

// Detect finds bubblewrap and checks, once per process, that it can make the namespaces the
// boundary needs (a kernel or an AppArmor profile may refuse unprivileged user namespaces).
func Detect() Status {
	detectOnce.Do(func() {
		if runtime.GOOS != "linux" {
			detected = probe()
			return
		}
		key := probeKey()
		if st, ok := cachedProbe(key); ok {
			detected = st
			return
		}
		detected = probe()
		rememberProbe(key, detected)
	})
	return detected
}

func probe() Status {
	if runtime.GOOS != "linux" {
		return Status{Why: "the sandbox is built for Linux only so far (" + runtime.GOOS + ": see docs/SECURITY.md)"}
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return Status{Why: "bubblewrap (bwrap) is not installed; install the bubblewrap package"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
		"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/run", "--", "true")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		return Status{Why: fmt.Sprintf("bubblewrap cannot make the sandbox's namespaces here (%s); "+
			"user namespaces may be off or restricted (kernel.unprivileged_userns_clone, "+
			"kernel.apparmor_restrict_unprivileged_userns)", msg)}
	}
	st := Status{Available: true, Mechanism: "bubblewrap", bwrap: path}
	if v, err := exec.CommandContext(ctx, path, "--version").Output(); err == nil {
		st.Mechanism = strings.TrimSpace(string(v))
	}
	return st
}
