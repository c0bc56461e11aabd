package agent

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
)

// AttachmentText is how the model reads a user message's attachments: after the message, each
// in a block naming where it came from. The text is the log's, so the request stays
// byte-identical from turn to turn.
func AttachmentText(atts []store.Attachment) string {
	var b strings.Builder
	for _, a := range atts {
		attr := func(k, v string) {
			if v != "" {
				fmt.Fprintf(&b, " %s=%q", k, v)
			}
		}
		b.WriteString("\n\n<attachment")
		attr("kind", string(a.Kind))
		attr("server", a.Server)
		attr("uri", a.URI)
		attr("name", a.Name)
		attr("type", a.MimeType)
		b.WriteString(">\n")
		b.WriteString(a.Text)
		b.WriteString("\n</attachment>")
	}
	return b.String()
}
