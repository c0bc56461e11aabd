// Package assist holds the tools that reach the session rather than the workspace: ask_human
// (a question to the user) and read_result (an earlier tool output kept out of the context).
package assist

import (
	"embed"
	"strings"
)

//go:embed *.md
var docs embed.FS

func doc(name string) string {
	b, err := docs.ReadFile(name + ".md")
	if err != nil {
		panic("assist: missing description " + name + ".md")
	}
	return strings.TrimSpace(string(b))
}
