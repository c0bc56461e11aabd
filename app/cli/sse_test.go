package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
)

// readEvents calls each with the topic and data of every event `tofu serve`'s /api/events sends
// on r, until r ends (the tests that watch the stream).
func readEvents(r io.Reader, each func(topic string, data json.RawMessage)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m struct {
			Topic string          `json:"topic"`
			Data  json.RawMessage `json:"data"`
		}
		if json.Unmarshal([]byte(line), &m) == nil {
			each(m.Topic, m.Data)
		}
	}
}
