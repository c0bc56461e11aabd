package matrix_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/matrix"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestFilesOnARealHomeserver: on a real Dendrite, an m.file the owner uploads with a caption is
// downloaded from the media store, saved into the workspace and read by the model; /file sends
// a workspace file back as an m.file the owner can download.
func TestFilesOnARealHomeserver(t *testing.T) {
	hs := dendrite(t)
	ctx := context.Background()
	bot, owner := account(t, hs, "tofu"), account(t, hs, "alice")
	tofu := bridgetest.New(t)
	tofu.Model.DefaultFunc(func(r llm.Request) scripted.Reply {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "tofu is made of soybeans") {
				return scripted.Reply{Text: "The notes say soybeans."}
			}
		}
		return scripted.Reply{Text: "I see no notes."}
	})
	p, err := matrix.New(matrix.Options{Homeserver: hs, UserID: string(bot.UserID), Token: bot.AccessToken, PollTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tofu.Start(t, bridge.Options{Platform: p, Allowed: []string{string(owner.UserID)}})
	room := directRoom(t, owner, bot.UserID)
	mine := watch(t, owner, bot.UserID, room)

	notes := []byte("tofu is made of soybeans\n")
	up, err := owner.UploadBytes(ctx, notes, "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	content := &event.MessageEventContent{MsgType: event.MsgFile, Body: "what do my notes say?", FileName: "notes.txt",
		URL: up.ContentURI.CUString(), Info: &event.FileInfo{MimeType: "text/plain", Size: len(notes)}}
	if _, err := owner.SendMessageEvent(ctx, room, event.EventMessage, content); err != nil {
		t.Fatal(err)
	}
	mine.waitFor(t, "The notes say soybeans.", tofu.Log)
	if b, err := os.ReadFile(filepath.Join(tofu.WS, "notes.txt")); err != nil || string(b) != string(notes) {
		t.Fatalf("notes.txt in the workspace = %q, %v", b, err)
	}

	if _, err := owner.SendText(ctx, room, "/file notes.txt"); err != nil {
		t.Fatal(err)
	}
	mine.waitFor(t, "notes.txt", tofu.Log) // the m.file's body is its name
	hist, err := owner.Messages(ctx, room, "", "", mautrix.DirectionBackward, nil, 50)
	if err != nil {
		t.Fatal(err)
	}
	var sent []byte
	for _, ev := range hist.Chunk {
		if ev.Sender != bot.UserID || ev.Content.ParseRaw(ev.Type) != nil {
			continue
		}
		if msg := ev.Content.AsMessage(); msg.MsgType == event.MsgFile && msg.FileName == "notes.txt" {
			uri, err := msg.URL.Parse()
			if err != nil {
				t.Fatal(err)
			}
			if sent, err = owner.DownloadBytes(ctx, uri); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if string(sent) != string(notes) {
		t.Fatalf("the file /file sent reads %q", sent)
	}
	if _, err := owner.SendText(ctx, room, "/file ../../etc/passwd"); err != nil {
		t.Fatal(err)
	}
	mine.waitFor(t, "is outside the conversation's workspace", tofu.Log)
}
