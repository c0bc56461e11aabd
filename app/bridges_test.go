package app

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
)

// TestBridgeSettingsSaveKeepAndRemove saves a bridge as Settings' Chat bridges section does:
// List shows its settings and that a token is kept (never the token), the Settings form saved
// with an older copy keeps it, a bridge on without an allowed user is refused, and Remove
// forgets its token.
func TestBridgeSettingsSaveKeepAndRemove(t *testing.T) {
	dir := t.TempDir()
	settings := NewSettingsService(config.Open(dir), config.FileSecrets(dir))
	s := BridgeSettings(settings)
	form, err := settings.Get() // the Settings view, opened before the bridge is added
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save("phone", config.Bridge{Platform: "telegram", On: true}, ""); err == nil || !strings.Contains(err.Error(), "allowed") {
		t.Fatalf("on without an allowed user: %v", err)
	}
	list, err := s.Save("phone", config.Bridge{Platform: "telegram", On: true, Allowed: []string{"42"}, Approve: "safe"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].HasToken || list[0].Config.Approve != "safe" || !list[0].On {
		t.Fatalf("after Save: %+v", list)
	}
	if err := s.SetToken("phone", "123:secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := settings.Update(form); err != nil {
		t.Fatal(err)
	}
	list, err = s.List()
	if err != nil || len(list) != 1 || !list[0].HasToken || list[0].Config.Allowed[0] != "42" {
		t.Fatalf("after the older form was saved: %+v, %v", list, err)
	}
	if strings.Contains(strings.Join(list[0].Config.Allowed, ""), "secret") {
		t.Fatal("the token is in the list")
	}
	if list, err = s.Remove("phone"); err != nil || len(list) != 0 {
		t.Fatalf("Remove: %+v, %v", list, err)
	}
	if s.token("phone") != "" {
		t.Fatal("the removed bridge's token is still kept")
	}
}
