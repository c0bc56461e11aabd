package browser

import (
	"errors"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// URLs are judged in the form Chromium will load them, not as the model spelt them: Chromium
// reads `file:\\\home\u\.ssh\id_rsa`, `FILE:/home/…`, `file:home/…` and
// `file://localhost/home/…` all as file:///home/…, and a judge that parsed the spelling with
// Go's rules saw a file with no path (inside the workspace) where Chromium opened the key.

// specialSchemes are the schemes whose URLs the URL standard (and Chromium) parse with a host
// and a hierarchical path, reading a backslash as a slash.
var specialSchemes = map[string]bool{"file": true, "http": true, "https": true, "ws": true, "wss": true, "ftp": true}

// CanonicalURL rewrites raw the way Chromium reads it (the URL standard's parser, the part of
// it that decides which file or host a URL reaches): surrounding spaces and control
// characters go, tabs and newlines inside go, the scheme is lower case, a special URL's
// backslashes before its query are slashes, its missing or extra slashes after the scheme are
// made two, its host is lower case, and file://localhost/ is file:///. Anything else is left
// as it is (url.Parse then judges it).
func CanonicalURL(raw string) string {
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !validScheme(s[:colon]) {
		return s
	}
	scheme, rest := strings.ToLower(s[:colon]), s[colon+1:]
	if !specialSchemes[scheme] {
		return scheme + ":" + rest
	}
	end := strings.IndexAny(rest, "?#")
	if end < 0 {
		end = len(rest)
	}
	rest = strings.ReplaceAll(rest[:end], `\`, "/") + rest[end:]
	if scheme == "file" && !strings.HasPrefix(rest, "//") {
		// file:/x and file:x are file:///x: a path, no host.
		return "file:///" + strings.TrimLeft(rest, "/")
	}
	if scheme == "file" {
		rest = rest[2:] // the host runs to the next slash: file:///x has none
	} else {
		rest = strings.TrimLeft(rest, "/") // http:x, http:/x and http:///x are http://x
	}
	hostEnd := strings.IndexAny(rest, "/?#")
	if hostEnd < 0 {
		hostEnd = len(rest)
	}
	host := strings.ToLower(rest[:hostEnd])
	if scheme == "file" && host == "localhost" {
		host = ""
	}
	return scheme + "://" + host + rest[hostEnd:]
}

func validScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// errRemoteFile is a file:// URL naming another machine (file://server/share/…).
var errRemoteFile = errors.New("a file URL on another machine")

// FilePath is the local file a file URL opens, cleaned (not resolved: links are the judge's
// business), from its canonical form.
func FilePath(raw string) (string, error) {
	u, err := url.Parse(CanonicalURL(raw))
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", errors.New("not a file URL")
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", errRemoteFile
	}
	if strings.ContainsRune(u.Path, 0) {
		return "", errors.New("a file URL with a NUL in its path")
	}
	return filepath.FromSlash(path.Clean("/" + u.Path)), nil
}
