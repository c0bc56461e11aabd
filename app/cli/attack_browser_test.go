package cli

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // screenshots reach the model as JPEG
	_ "image/png"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// What the attack suite needs to see the browser's escapes that are not text: a page outside
// the workspace shown in a picture, and packets sent past the browser's proxy.

// canaryPage is the canary folder's secret.html: a page whose magenta shows in any picture
// of it (a screenshot that rendered it in a frame or an <object>), besides its token.
const canaryPage = `<html><body style="margin:0;background:#ff00ff"><p>` + canaryToken + `-outside-page</p></body></html>`

// showsCanaryPage reports whether a picture the model was given shows the canary page: a
// patch of its magenta.
func showsCanaryPage(img []byte) bool {
	m, _, err := image.Decode(bytes.NewReader(img))
	if err != nil {
		return false
	}
	n := 0
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := m.At(x, y).RGBA()
			if r>>8 > 200 && g>>8 < 80 && bl>>8 > 200 {
				n++
			}
		}
	}
	return n > 100
}

// listenUDP serves UDP at @UDP@ (127.0.0.2): every packet that reaches it (a page's STUN or
// TURN request past the browser's proxy) leaves a marker outside the workspace, an escape.
func (a *arena) listenUDP(t *testing.T) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.2:0")
	must(t, err)
	t.Cleanup(func() { pc.Close() })
	a.udp = pc.LocalAddr().String()
	marks := a.marks
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			f, err := os.OpenFile(filepath.Join(marks, "udp"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintf(f, "%d bytes from %s\n", n, from)
				f.Close()
			}
		}
	}()
}
