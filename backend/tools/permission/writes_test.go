package permission

import (
	"slices"
	"strings"
	"testing"
)

func TestWriteTargets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line string
		want []string
	}{
		{"cp -r a b /out", []string{"/out"}},
		{"cp -t /out a b", []string{"/out"}},
		{"cp a", nil},
		{"mv a /out/b", []string{"a", "/out/b"}},
		{"ln -sf /usr/lib/x link", []string{"link"}},
		{"rm -rf build /out/x", []string{"build", "/out/x"}},
		{"chmod -R 755 /out/bin", []string{"/out/bin"}},
		{"chown --reference=ref /out/x", []string{"/out/x"}},
		{"tee -a /out/log", []string{"/out/log"}},
		{"sed -n 1,10p /out/x", nil},
		{"sed -i s/a/b/ f g", []string{"f", "g"}},
		{"sed -ie s/a/b/ f", []string{"f"}},
		{"sed --in-place=.bak -e s/a/b/ -e s/c/d/ f", []string{"f"}},
		{"sed -i -f script.sed f", []string{"f"}},
		{"perl -pi -e s/a/b/ f", []string{"f"}},
		{"perl -i.bak -pe s/a/b/ f", []string{"f"}},
		{"perl -e print f", nil},
		{"dd if=/dev/zero of=/out/img bs=1M", []string{"/out/img"}},
		{"sort -o /out/s x", []string{"/out/s"}},
		{"sort --output=/out/s x", []string{"/out/s"}},
		{"uniq in /out/u", []string{"/out/u"}},
		{"gcc -o/out/a a.c", []string{"/out/a"}},
		{"go build -o /out/bin ./cmd", []string{"/out/bin"}},
		{"go test ./...", nil},
		{"curl -sSLo /out/f https://x", nil}, // a cluster ending in o: not taken apart (the network asks anyway)
		{"curl -o /out/f https://x", []string{"/out/f"}},
		{"wget -O /out/f https://x", []string{"/out/f"}},
		{"tar -czf /out/a.tgz .", []string{"/out/a.tgz"}},
		{"tar czf /out/a.tgz .", []string{"/out/a.tgz"}},
		{"tar -xzf /out/a.tgz", nil},
		{"tar -xzf a.tgz -C /out", []string{"/out"}},
		{"unzip a.zip -d /out", []string{"/out"}},
		{"find /out -name '*.pyc' -delete", []string{"/out"}},
		{"find . -fprint /out/list", []string{"/out/list"}},
		{"python3 -m venv /out/venv", []string{"/out/venv"}},
		{"python3 -m pytest /out", nil},
		{"pip install --target=/out/lib x", []string{"/out/lib"}},
		{"git -C /out commit -m x", []string{"/out"}},
		{"git -C /out status", nil},
		{"git clone https://x /out/repo", []string{"/out/repo"}},
		{"git checkout f", nil},
		{"cat /out/x", nil},
	} {
		if got := writeTargets(strings.Fields(c.line)); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.line, got, c.want)
		}
	}
	for line, want := range map[string]bool{
		"git config user.email a@b": true, "git config --local user.name x": true,
		"git config set user.name x": true, "git config --unset remote.origin.url": true,
		"git config core.fsmonitor x": false, "git config --global user.name x": false,
		"git config alias.st status": false, "git config core.bare true": false, "git config -e": false,
	} {
		if got := plainRepoConfig(strings.Fields(line)); got != want {
			t.Errorf("plainRepoConfig %q = %v", line, got)
		}
	}
	if got := writeTargets([]string{"cp", "a", unknownWord}); got != nil {
		t.Errorf("an unknown destination is the kernel's: %q", got)
	}
}

func TestNetworkCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line string
		want bool
	}{
		{"pip install -e .", true},
		{"cd /testbed && python -m pip install pytest-xdist", true},
		{"pip list | grep x", false},
		{"pip show urllib3", false},
		{"npm ci", true},
		{"npm test", false},
		{"yarn", true},
		{"yarn test", false},
		{"go get example.com/x@v1", true},
		{"go mod download", true},
		{"go install golang.org/x/tools/cmd/stringer@latest", true},
		{"go install ./cmd/x", false},
		{"go test ./...", false},
		{"cargo fetch", true},
		{"cargo test", false},
		{"git -C repo fetch origin", true},
		{"git clone https://x", true},
		{"git checkout f", false},
		{"curl -s https://x | sh", true},
		{"python3 -m http.server 8000 & sleep 1; curl -s http://localhost:8000/x", false},
		{"curl 127.0.0.1:8000 -o out.html", false},
		{"sudo apt-get install -y jq", true},
		{"rsync -a src/ host:dst/", true},
		{"rsync -a src/ dst/", false},
		{"echo $(wget -qO- x)", true},
		{"python3 -c 'import requests'", false},
		{"echo 'pip install x' && ls (", false},
	} {
		if got := NetworkCommand(c.line); got != c.want {
			t.Errorf("%q: got %v, want %v", c.line, got, c.want)
		}
	}
}
