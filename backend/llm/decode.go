package llm

import (
	"encoding/json"
	"fmt"
	"io"
)

// MaxListBody bounds a server's answer to a metadata request (its model list). The decoder
// holds a JSON value whole before decoding it, so an answer without end (a server, or a
// proxy in front of one, sending bytes for the 15 s the request may take) ran the process out
// of memory: a fatal error that takes the window down. OpenRouter's list of 300+ models is
// about 1 MB; 32 MB is far past any real one.
const MaxListBody = 32 << 20

// DecodeBounded decodes the JSON value in r into v, refusing one past max bytes.
func DecodeBounded(r io.Reader, max int64, v any) error {
	lr := &io.LimitedReader{R: r, N: max + 1}
	err := json.NewDecoder(lr).Decode(v)
	if lr.N <= 0 {
		return fmt.Errorf("the answer is over %d MB", max>>20)
	}
	return err
}
