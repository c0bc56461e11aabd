package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tofu open (the menu entry's "Open with Tofu"): beside a running Tofu the PDF is forwarded to
// it, which adds it to the library (and shows it: App.OpenPaper); a file:// address as desktops
// pass it works too; what is not a file is refused before anything starts; with no Tofu running
// and no display, it says so as `tofu` does. The installed package's test opens through the
// real desktop association (.ci/package-test.sh).
func TestOpenCommand(t *testing.T) {
	data := t.TempDir()
	pdf, _ := filepath.Abs("testdata/multivae_joss.pdf")
	dir := t.TempDir()
	spaced := filepath.Join(dir, "my paper.pdf")
	b, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spaced, b, 0o644); err != nil {
		t.Fatal(err)
	}

	_, errOut, code := tofuAt(t, data, "", "open", filepath.Join(dir, "missing.pdf"))
	if code == 0 || !strings.Contains(errOut, "cannot open") || !strings.Contains(errOut, "missing.pdf") {
		t.Fatalf("open of a missing file: exit %d\n%s", code, errOut)
	}
	_, errOut, code = tofuAt(t, data, "", "open", dir)
	if code == 0 || !strings.Contains(errOut, "it is not a file") {
		t.Fatalf("open of a folder: exit %d\n%s", code, errOut)
	}
	cmd := cliCmd(data, "open", spaced)
	cmd.Env = append(cmd.Env, "DISPLAY=", "WAYLAND_DISPLAY=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if cmd.Run() == nil || !strings.Contains(stderr.String(), "display") {
		t.Fatalf("open with no Tofu running and no display: %v\n%s", cmd.ProcessState, stderr.String())
	}

	inst := startServe(t, data)
	out, errOut, code := tofuAt(t, data, "", "open", spaced)
	if code != 0 || !strings.Contains(out, "MultiVae") || !strings.Contains(out, "shown in the running Tofu") {
		t.Fatalf("open beside a running Tofu: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = tofuAt(t, data, "", "open", "file://"+filepath.Join(dir, "my%20paper.pdf"))
	if code != 0 || !strings.Contains(out, "MultiVae") {
		t.Fatalf("open of a file:// address: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = tofuAt(t, data, "", "paper", "list", "--json")
	if code != 0 || strings.Count(out, `"id":`) != 1 || !strings.Contains(out, `"name":"my paper.pdf"`) {
		t.Fatalf("the library after the opens: exit %d\n%s%s", code, out, errOut)
	}
	inst.stop(t)
}
