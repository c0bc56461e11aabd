package trace

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/store"
)

// exportedAttachment is the bytes of a file or image attached to a user message, exported
// with the log that names it (UserMessage.Attachments[].blob); JSON writes Data as base64.
type exportedAttachment struct {
	Blob     string `json:"blob"`
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	Data     []byte `json:"data"`
}

// attachments reads the bytes of every attachment the log's user messages name, once each,
// checked against their hash: an export holds what the model was shown.
func attachments(log Log, events []store.Event) ([]exportedAttachment, error) {
	out := []exportedAttachment{}
	seen := map[string]bool{}
	for _, e := range events {
		var u store.UserMessage
		if e.Type != store.EventUser || e.Decode(&u) != nil {
			continue
		}
		for _, a := range u.Attachments {
			if a.Blob == "" || seen[a.Blob] {
				continue
			}
			seen[a.Blob] = true
			data, err := log.RequestPart(a.Blob)
			if err != nil {
				return nil, fmt.Errorf("attachment %s of event %d (%s): %w", a.Name, e.Seq, a.Blob, err)
			}
			out = append(out, exportedAttachment{Blob: a.Blob, Name: a.Name, MimeType: a.MimeType, Data: data})
		}
	}
	return out, nil
}
