package platforms

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
)

// TestFormsAskForSettingsThatExist checks the Settings form of every platform: one per platform
// a bridge can be, each field one of config.Bridge's (by its JSON name, so what is typed lands
// in the settings), and a field marked required is one the settings refuse "on" without.
func TestFormsAskForSettingsThatExist(t *testing.T) {
	keys := map[string]bool{}
	bt := reflect.TypeOf(config.Bridge{})
	for i := range bt.NumField() {
		name, _, _ := strings.Cut(bt.Field(i).Tag.Get("json"), ",")
		keys[name] = true
	}
	var names []string
	for _, f := range Forms() {
		names = append(names, f.Platform)
		if f.Label == "" || f.Token == "" {
			t.Errorf("%s: no label or token name: %+v", f.Platform, f)
		}
		for _, fl := range f.Fields {
			if !keys[fl.Key] || fl.Label == "" {
				t.Errorf("%s: field %+v is not a setting of config.Bridge", f.Platform, fl)
				continue
			}
			if !fl.Required {
				continue
			}
			// Every field filled but this one: turning it on is refused.
			values := map[string]any{"platform": f.Platform, "on": true, "allowed": []string{"1"}}
			for _, o := range f.Fields {
				if o.Key != fl.Key {
					values[o.Key] = "https://x.example.org"
				}
			}
			raw, _ := json.Marshal(values)
			var b config.Bridge
			if err := json.Unmarshal(raw, &b); err != nil {
				t.Fatal(err)
			}
			c := config.Default()
			c.Bridges = map[string]config.Bridge{"b": b}
			if err := c.Validate(); err == nil {
				t.Errorf("%s: %s is marked required, but the settings take the bridge on without it", f.Platform, fl.Key)
			}
		}
	}
	want := slices.Clone(config.BridgePlatforms)
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("forms for %v, platforms %v", names, config.BridgePlatforms)
	}
	for p := range forms {
		if !slices.Contains(config.BridgePlatforms, p) {
			t.Errorf("a form for %s, which is not a platform", p)
		}
	}
}
