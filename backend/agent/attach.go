package agent

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
)

// AttachmentText is how the model reads a user message's attachments: after the message, each
// in a block naming where it came from. The text is the log's, so the request stays
// byte-identical from turn to turn. An image is only named here: its bytes go with the
// message as an image (attachedImages).
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
		if a.URI != a.Name || a.Kind == store.AttachMCPResource {
			attr("uri", a.URI)
		}
		attr("name", a.Name)
		attr("type", a.MimeType)
		if a.Kind == store.AttachImage {
			b.WriteString(" />")
			continue
		}
		b.WriteString(">\n")
		b.WriteString(a.Text)
		b.WriteString("\n</attachment>")
	}
	return b.String()
}

// attachedImages are the bytes of a message's image attachments, read with part (the store's
// RequestPart: checked against their hash). Without part (a projection for an export) there
// are none; an image that cannot be read is named in the returned note instead, so the model
// knows it was there.
func attachedImages(atts []store.Attachment, part func(string) ([]byte, error)) ([][]byte, string) {
	var imgs [][]byte
	var note strings.Builder
	for _, a := range atts {
		if a.Kind != store.AttachImage || a.Blob == "" || part == nil {
			continue
		}
		data, err := part(a.Blob)
		if err != nil {
			fmt.Fprintf(&note, "\n(the image %s could not be read: %v)", a.Name, err)
			continue
		}
		imgs = append(imgs, data)
	}
	return imgs, note.String()
}
