//go:build !unix

package eval

import (
	"context"
	"errors"
)

const localModel = ""

// startLocal needs the tests' real server, which runs on unix only: pass --ollama URL.
func startLocal(context.Context, string, []int) ([]*localServer, string, func(), error) {
	return nil, "", nil, errors.New("starting an Ollama server here is unix-only: pass --ollama URL of a running one")
}
