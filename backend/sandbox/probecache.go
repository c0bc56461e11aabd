package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A successful probe is remembered on disk for this boot, this user and this bubblewrap (its
// path, size and time), so that a short-lived Tofu (`tofu run`, `tofu sandbox run`) does not
// pay a namespace round trip before its first command. A failure is never remembered: the
// next start looks again (bubblewrap may have been installed since).

// probeKey names the conditions a probe's answer holds under ("" : nothing to key on).
func probeKey() string {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return ""
	}
	st, err := os.Stat(path)
	boot, berr := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil || berr != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d %d %s", path, st.Size(), st.ModTime().UnixNano(), os.Getuid(), strings.TrimSpace(string(boot)))
}

type probeRecord struct {
	Key    string `json:"key"`
	Status struct {
		Mechanism string `json:"mechanism"`
		Bwrap     string `json:"bwrap"`
	} `json:"status"`
}

func probeCachePath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "tofu", "sandbox-probe.json")
}

// cachedProbe returns the remembered successful probe for key, if any.
func cachedProbe(key string) (Status, bool) {
	p := probeCachePath()
	if key == "" || p == "" {
		return Status{}, false
	}
	b, err := os.ReadFile(p)
	var r probeRecord
	if err != nil || json.Unmarshal(b, &r) != nil || r.Key != key || r.Status.Bwrap == "" {
		return Status{}, false
	}
	return Status{Available: true, Mechanism: r.Status.Mechanism, bwrap: r.Status.Bwrap}, true
}

// rememberProbe keeps a successful probe for key (best effort).
func rememberProbe(key string, st Status) {
	p := probeCachePath()
	if key == "" || p == "" || !st.Available {
		return
	}
	var r probeRecord
	r.Key, r.Status.Mechanism, r.Status.Bwrap = key, st.Mechanism, st.bwrap
	b, _ := json.Marshal(r)
	if os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	tmp := p + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, p)
	}
}
