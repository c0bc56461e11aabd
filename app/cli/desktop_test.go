package cli

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
)

// desktopCLITest runs `tofu desktop …` commands against a display; the clipboard's background
// server is this test binary run as `tofu` (TestCLIHelper).
func desktopCLITest(t *testing.T, s *desktoptest.Server) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		c := &desktopCLI{self: func(a ...string) *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=TestCLIHelper")
			cmd.Env = append(append([]string{}, s.Env...), "TOFU_CLI_HELPER=1", "TOFU_CLI_ARGS="+strings.Join(a, "\x1f"))
			return cmd
		}}
		cmd := c.command()
		var out, errOut bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs(append(args, "--display", s.Display))
		err := cmd.Execute()
		if err != nil {
			return out.String(), err
		}
		return out.String(), nil
	}
}

func TestDesktopCommands(t *testing.T) {
	s := desktoptest.Start(t, desktoptest.Options{Width: 1024, Height: 768})
	tofu := desktopCLITest(t, s)
	file := filepath.Join(t.TempDir(), "typed.txt")
	term := s.Command("xterm", "-class", "TofuCLI", "-title", "TofuCLI", "-geometry", "60x8+40+40", "-e", "sh", "-c",
		"IFS= read -r l; printf '%s' \"$l\" > "+file+".part && mv "+file+".part "+file+"; sleep 600")
	s.Background(term)
	xid := s.WindowOf("TofuCLI")

	out, err := tofu("windows", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ws []desktop.Window
	if err := json.Unmarshal([]byte(out), &ws); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(ws) != 1 || strconv.Itoa(int(ws[0].ID)) != xid || ws[0].Class != "TofuCLI" || ws[0].PID == 0 {
		t.Fatalf("windows: %+v (xdotool: %s)", ws, xid)
	}
	if _, err := tofu("window", "focus", xid); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the xterm to be active", func() bool { return s.ActiveWindow() == xid })
	if _, err := tofu("type", "ça marche ✓"); err != nil {
		t.Fatal(err)
	}
	if _, err := tofu("key", "Return"); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the shell to write the line", func() bool { _, err := os.Stat(file); return err == nil })
	if b, _ := os.ReadFile(file); string(b) != "ça marche ✓" {
		t.Fatalf("typed %q", b)
	}
	if _, err := tofu("click", "500", "400", "--button", "right"); err != nil {
		t.Fatal(err)
	}
	if loc := s.Output("xdotool", "getmouselocation"); !strings.HasPrefix(loc, "x:500 y:400 ") {
		t.Fatalf("pointer at %s", loc)
	}

	png1 := filepath.Join(t.TempDir(), "shot.png")
	out, err = tofu("screenshot", "--max-width", "512", "--output", png1, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Path  string
		Frame desktop.Frame
	}
	json.Unmarshal([]byte(out), &res)
	if res.Frame.W != 512 || res.Frame.H != 384 || res.Path != png1 {
		t.Fatalf("screenshot: %s", out)
	}
	f, err := os.Open(png1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil || cfg.Width != 512 || cfg.Height != 384 {
		t.Fatalf("the PNG is %+v, %v", cfg, err)
	}

	if _, err := tofu("clipboard", "--set", "from the CLI ✓"); err != nil {
		t.Fatal(err)
	}
	if got := s.Output("xclip", "-o", "-selection", "clipboard"); got != "from the CLI ✓" {
		t.Fatalf("xclip read %q after the command returned", got)
	}
	in := s.Command("xclip", "-quiet", "-i", "-selection", "clipboard")
	in.Stdin = strings.NewReader("back from xclip")
	s.Background(in)
	s.WaitFor("tofu to read xclip's text", func() bool {
		out, err := tofu("clipboard")
		return err == nil && out == "back from xclip"
	})

	if _, err := tofu("window", "close", xid); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the xterm to close", func() bool {
		out, _ := s.Command("xdotool", "search", "--class", "TofuCLI").Output()
		return len(bytes.TrimSpace(out)) == 0
	})
	if _, err := tofu("window", "focus", xid); err == nil || !strings.Contains(err.Error(), "no window") {
		t.Fatalf("focus on a closed window: %v", err)
	}
}
