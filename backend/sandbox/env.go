package sandbox

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// secretName matches environment variables that by their name carry a credential
// (OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, PGPASSWORD…): Tofu's own environment
// is the user's, and a command must not find in it what the hidden files would have given.
var secretName = regexp.MustCompile(`(?i)(^|_)(API_?KEY|KEY_?ID|ACCESS_?KEY|PRIVATE_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|AUTH|COOKIE|SESSION_?KEY)($|_)|^(PG|MYSQL_)?PASSWORD$`)

// dropped are variables that point at a way around the boundary: agent sockets, the session
// bus, the user's runtime folder (all under the hidden /run), credential files.
var dropped = []string{
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
	"XDG_RUNTIME_DIR", "GOOGLE_APPLICATION_CREDENTIALS", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE",
	"KUBECONFIG", "DOCKER_HOST", "DOCKER_CONFIG", "NETRC", "GIT_ASKPASS", "SSH_ASKPASS",
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
	"TMPDIR", "GOCACHE", "XDG_CACHE_HOME", "npm_config_cache", "PIP_CACHE_DIR",
}

// environ is env less what would reach around the boundary, plus where temporary files and
// caches go inside. Names in keep stay whatever they are called.
func (b Boundary) environ(env, keep []string) []string {
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(keep, name) && (slices.Contains(dropped, name) || secretName.MatchString(name)) {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "TMPDIR=/tmp")
	if b.Cache != "" {
		out = append(out, "XDG_CACHE_HOME="+b.Cache, "GOCACHE="+filepath.Join(b.Cache, "go-build"),
			"npm_config_cache="+filepath.Join(b.Cache, "npm"), "PIP_CACHE_DIR="+filepath.Join(b.Cache, "pip"))
	}
	return out
}

// Secret reports whether an environment variable's name says it carries a credential.
func Secret(name string) bool { return secretName.MatchString(name) }
