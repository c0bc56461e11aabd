package permission

import (
	"os"
	"path/filepath"

	"github.com/tofu-research/tofu/backend/tools"
)

// homeSecrets are the places in a home directory that hold keys and credentials: Tofu's own
// settings and API keys, SSH keys, keyrings, browser profiles, cloud and registry credentials,
// and the configuration files that run code or carry tokens. Reading or writing them always
// asks, whatever the tool, the rules or the workspace (a workspace may be the home itself),
// and an approval of them holds for one call only.
var homeSecrets = []string{
	".config/tofu", ".local/share/tofu",
	".ssh", ".gnupg", ".local/share/keyrings", ".password-store", ".pki",
	".mozilla", ".config/chromium", ".config/google-chrome", ".config/BraveSoftware",
	".config/microsoft-edge", ".config/vivaldi", ".config/opera", ".thunderbird",
	".aws", ".config/gcloud", ".azure", ".kube", ".docker/config.json", ".oci", ".terraform.d",
	".netrc", ".npmrc", ".yarnrc", ".pypirc", ".git-credentials", ".gitconfig", ".config/git",
	".config/gh", ".config/hub", ".cargo/credentials", ".cargo/credentials.toml",
	".config/rclone", ".vault-token", ".pgpass", ".my.cnf",
}

// homeStartup are files in a home directory that run code when a shell, a session or a tool
// starts: writing them asks even inside the workspace (a workspace may be the home itself).
var homeStartup = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".config/fish", ".config/autostart", ".config/systemd", ".config/environment.d",
	".config/go/env", ".pam_environment", ".xprofile", ".xsessionrc", ".inputrc",
}

// places returns the absolute places of a list under home, both as written and with
// symlinks resolved, plus Tofu's own directories when XDG variables move them.
func places(home string, rel []string, xdg bool) []string {
	var out []string
	add := func(p string) {
		out = append(out, filepath.Clean(p))
		if r := tools.RealPath(p); r != filepath.Clean(p) {
			out = append(out, r)
		}
	}
	if home != "" {
		for _, r := range rel {
			add(filepath.Join(home, r))
		}
	}
	if xdg {
		for _, env := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
			if d := os.Getenv(env); filepath.IsAbs(d) {
				add(filepath.Join(d, "tofu"))
			}
		}
	}
	return out
}

// secret names the secret place real is in ("" when none, or when the place is shown).
func (p *Policy) secret(real string) string {
	for _, v := range p.cfg.Shown {
		if tools.Within(v, real) {
			return ""
		}
	}
	for _, s := range p.secrets {
		if tools.Within(s, real) {
			return s
		}
	}
	return ""
}

// secretUnder names a secret place inside dir ("" when none): a recursive reader of dir
// would read it.
func (p *Policy) secretUnder(dir string) string {
	for _, s := range p.secrets {
		if tools.Within(dir, s) {
			return s
		}
	}
	return ""
}

// startup reports whether writing real would change what runs when a shell or session
// starts.
func (p *Policy) startup(real string) bool {
	for _, s := range p.startups {
		if tools.Within(s, real) {
			return true
		}
	}
	return false
}
