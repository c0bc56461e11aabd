package window

import (
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/tofu-research/tofu/app"
)

// Every service the front end calls through the bridge is bound to the window: one left out
// works under `tofu serve` and fails only in the window (the memory panel, MCP servers, skills,
// My Day and the browser panel once did).
func TestWindowBindsEveryService(t *testing.T) {
	src, err := os.ReadFile("../../frontend/src/lib/bridge.ts")
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{}
	for _, m := range regexp.MustCompile(`call(?:<[^(]*>)?\('([A-Za-z]+Service)\.`).FindAllStringSubmatch(string(src), -1) {
		called[m[1]] = true
	}
	if len(called) < 5 {
		t.Fatalf("found only %d services called in bridge.ts: %v", len(called), called)
	}
	bound := map[string]bool{}
	for _, s := range services(&app.App{}) {
		bound[reflect.TypeOf(s).Elem().Name()] = true
	}
	for name := range called {
		if !bound[name] {
			t.Errorf("the front end calls %s, which the window does not bind", name)
		}
	}
}
