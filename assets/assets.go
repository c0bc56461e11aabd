// Package assets holds what Tofu embeds in its binary: prompts, tool descriptions, skills and
// icons. Text here is paid for in tokens on every request, so keep it short.
package assets

import (
	"embed"
	"strings"
)

//go:embed prompts/*.md
var prompts embed.FS

//go:embed icon.png
var icon []byte

// Icon returns the window's icon: PNG, 256 px, 8 bits a channel. GTK decodes it on the window's
// thread before WebKit starts its processes: the 512 px, 16-bit original (2 MB decoded) took ~9 ms
// of the first paint's critical path. The desktop entry's icon is build/appicon.png.
func Icon() []byte { return icon }

// Prompt returns the embedded prompt prompts/<name>.md, trimmed. It panics on an unknown name:
// prompt names are constants in the code, so a typo is a programming error caught by any test.
func Prompt(name string) string {
	b, err := prompts.ReadFile("prompts/" + name + ".md")
	if err != nil {
		panic("assets: no prompt " + name)
	}
	return strings.TrimSpace(string(b))
}
