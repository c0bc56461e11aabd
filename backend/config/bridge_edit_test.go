package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSaveBridgeChecksAndKeepsWhatWasTyped saves bridges as the Settings form sends them: the
// fields trimmed, each wrong one refused with its name and nothing written, on refused without
// an allowed user, and a removed bridge gone from the file.
func TestSaveBridgeChecksAndKeepsWhatWasTyped(t *testing.T) {
	t.Parallel()
	f := Open(t.TempDir())
	refused := []struct {
		name string
		b    Bridge
		want string
	}{
		{"my phone", Bridge{Platform: "telegram"}, "bridge name"},
		{"", Bridge{Platform: "telegram"}, "bridge name"},
		{" phone", Bridge{Platform: "telegram"}, "bridge name"},
		{"phone", Bridge{}, "choose its platform (matrix, telegram"},
		{"phone", Bridge{Platform: "irc"}, `platform "irc"`},
		{"phone", Bridge{Platform: "telegram", On: true, Allowed: []string{" ", ""}}, "list the user ids allowed"},
		{"home", Bridge{Platform: "matrix", On: true, Allowed: []string{"@me:example.org"}}, "homeserver and the bot's user id"},
		{"home", Bridge{Platform: "matrix", Homeserver: "matrix.example.org"}, `homeserver "matrix.example.org" is not an http(s) address`},
		{"phone", Bridge{Platform: "telegram", API: "ftp://x"}, "API address"},
		{"phone", Bridge{Platform: "telegram", Approve: "all"}, `approval mode "all": ask, safe or never`},
		{"phone", Bridge{Platform: "telegram", Tools: []string{"shell"}}, `tools: "shell"`},
		{"work", Bridge{Platform: "feishu", On: true, Allowed: []string{"ou_me"}}, "needs its app's id (app_id"},
		{"work", Bridge{Platform: "feishu", AppID: "cli_x", Domain: "open.feishu.cn"}, `domain (feishu, lark or an address) "open.feishu.cn"`},
	}
	for _, r := range refused {
		if _, err := f.SaveBridge(r.name, r.b); err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("SaveBridge(%q, %+v) = %v, want an error saying %q", r.name, r.b, err, r.want)
		}
	}
	if _, err := os.Stat(f.Path()); !os.IsNotExist(err) {
		t.Fatalf("a refused bridge wrote the settings file: %v", err)
	}

	c, err := f.SaveBridge("phone", Bridge{Platform: " Telegram ", On: true, Allowed: []string{" 123 ", "", "123", "456"}, Approve: "Safe", API: "http://127.0.0.1:9/"})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Bridges["phone"]
	if got.Platform != "telegram" || !slices.Equal(got.Allowed, []string{"123", "456"}) || got.Approve != "safe" || got.API != "http://127.0.0.1:9" {
		t.Fatalf("saved = %+v", got)
	}
	if _, err := f.SaveBridge("home", Bridge{Platform: "matrix", Homeserver: "https://matrix.example.org/", UserID: "@tofu:example.org"}); err != nil {
		t.Fatal(err)
	}
	c, err = Open(filepath.Dir(f.Path())).Load()
	if err != nil || len(c.Bridges) != 2 || c.Bridges["home"].Homeserver != "https://matrix.example.org" || c.Bridges["home"].On {
		t.Fatalf("read back: %+v, %v", c.Bridges, err)
	}
	if _, err := f.RemoveBridge("home"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.RemoveBridge("home"); err == nil || !strings.Contains(err.Error(), "no bridge named home") {
		t.Fatalf("removing it twice: %v", err)
	}
	if c, _ := f.Load(); len(c.Bridges) != 1 || c.Bridges["phone"].Platform != "telegram" {
		t.Fatalf("after the removal: %+v", c.Bridges)
	}
}
