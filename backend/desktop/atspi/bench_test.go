package atspi_test

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/atspi"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// BenchmarkSnapshotDialog is the accessibility snapshot of `zenity --entry`, with its o200k
// tokens beside what a screenshot of the same window costs as an image (OpenAI's 512-pixel
// tiles at high detail; Anthropic's width×height/750).
func BenchmarkSnapshotDialog(b *testing.B) {
	s := desktoptest.StartB(b, desktoptest.Options{DBus: true})
	var out bytes.Buffer
	cmd := s.Command("zenity", "--entry", "--title", "TofuAsk", "--text", "Your name?")
	cmd.Stdout = &out
	s.Background(cmd)
	id := s.WindowOf("Zenity")
	pid, _ := strconv.Atoi(s.Output("xdotool", "getwindowpid", id))
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, "DBUS_SESSION_BUS_ADDRESS="); ok {
			b.Setenv("DBUS_SESSION_BUS_ADDRESS", v)
		}
	}
	ctx := context.Background()
	bus, err := atspi.Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer bus.Close()
	var tree *atspi.Tree
	s.WaitFor("zenity on the accessibility bus", func() bool {
		tree, err = bus.Snapshot(ctx, pid, "")
		return err == nil && strings.Contains(tree.String(), `"OK"`)
	})
	d, err := desktop.Open(ctx, s.Display)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	n, _ := strconv.ParseUint(id, 10, 32)
	shot, err := d.WindowShot(uint32(n))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if tree, err = bus.Snapshot(ctx, pid, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	w, h := shot.Frame.W, shot.Frame.H
	b.ReportMetric(float64(tokens.Count(tree.String())), "tree-tokens")
	b.ReportMetric(float64(len(tree.Nodes)), "nodes")
	b.ReportMetric(float64(openAIImageTokens(w, h)), "image-tokens-openai")
	b.ReportMetric(float64(w*h/750), "image-tokens-anthropic")
	b.Logf("window %dx%d; tree:\n%s", w, h, tree)
}

// openAIImageTokens is OpenAI's published cost of an image at high detail: fit in 2048², the
// short side down to 768, then 170 per 512-pixel tile plus 85.
func openAIImageTokens(w, h int) int {
	fw, fh := float64(w), float64(h)
	if m := math.Max(fw, fh); m > 2048 {
		fw, fh = fw*2048/m, fh*2048/m
	}
	if m := math.Min(fw, fh); m > 768 {
		fw, fh = fw*768/m, fh*768/m
	}
	return 85 + 170*int(math.Ceil(fw/512)*math.Ceil(fh/512))
}
