package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Downloads land in Tofu's profile (<profile>/downloads, named by Chromium's id), never in the
// workspace directly: saving one there is a separate step, a write the approval service sees.

// download is one file a page downloaded.
type download struct {
	name, url, path string
	bytes           int64
	state           proto.BrowserDownloadProgressState
	done            chan struct{} // closed when it completed or failed
	reported        bool
}

func (m *Manager) downloadDir() string { return filepath.Join(m.o.ProfileDir, "downloads") }

// watchDownloads makes the browser save downloads in the profile and tells each to the session
// whose tab started it.
func (m *Manager) watchDownloads(b *rod.Browser) error {
	if err := os.MkdirAll(m.downloadDir(), 0o700); err != nil {
		return fmt.Errorf("create the downloads folder: %w", err)
	}
	err := proto.BrowserSetDownloadBehavior{Behavior: proto.BrowserSetDownloadBehaviorBehaviorAllowAndName,
		DownloadPath: m.downloadDir(), EventsEnabled: true}.Call(b)
	if err != nil {
		return fmt.Errorf("set the download folder: %w", err)
	}
	byGUID := map[string]*download{} // touched only by the event goroutine
	go b.EachEvent(func(e *proto.BrowserDownloadWillBegin) {
		d := &download{name: filepath.Base(e.SuggestedFilename), url: e.URL, path: filepath.Join(m.downloadDir(), e.GUID), done: make(chan struct{})}
		byGUID[e.GUID] = d
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, s := range m.sessions {
			if s.byTarget(proto.TargetTargetID(e.FrameID)) != nil {
				m.addDownload(s, d)
				return
			}
		}
	}, func(e *proto.BrowserDownloadProgress) {
		d := byGUID[e.GUID]
		if d == nil || e.State == proto.BrowserDownloadProgressStateInProgress {
			return
		}
		m.mu.Lock()
		d.state, d.bytes = e.State, int64(e.ReceivedBytes)
		m.mu.Unlock()
		delete(byGUID, e.GUID)
		close(d.done)
	})()
	return nil
}

// addDownload gives the session a download that began and wakes the save steps waiting for
// one. m.mu is held.
func (m *Manager) addDownload(s *sessionTabs, d *download) {
	s.downloads = append(s.downloads, d)
	close(m.began)
	m.began = make(chan struct{})
}

// takeDownloads describes the session's downloads not reported yet, waiting (within ctx) for
// those still running.
func (m *Manager) takeDownloads(ctx context.Context, session string) []string {
	m.mu.Lock()
	var fresh []*download
	if s := m.sessions[session]; s != nil {
		for _, d := range s.downloads {
			if !d.reported {
				d.reported = true
				fresh = append(fresh, d)
			}
		}
	}
	m.mu.Unlock()
	var out []string
	for _, d := range fresh {
		select {
		case <-d.done:
		case <-ctx.Done():
			out = append(out, fmt.Sprintf("download %s still running", d.name))
			continue
		}
		m.mu.Lock()
		state, n := d.state, d.bytes
		m.mu.Unlock()
		if state != proto.BrowserDownloadProgressStateCompleted {
			out = append(out, fmt.Sprintf("download %s %s", d.name, state))
			continue
		}
		out = append(out, fmt.Sprintf("downloaded %s (%d bytes): save it into the workspace with a save step", d.name, n))
	}
	return out
}

// SaveDownload copies the session's download called name (the last of that name; "": the
// last one) to dest, waiting for it to begin (within Options.DownloadGrace) and to finish
// (within ctx). dest must be inside the session's workspace (Confine); the file is created
// there through an os.Root, never through a link, and never over one.
func (m *Manager) SaveDownload(ctx context.Context, session, name, dest string) (string, error) {
	m.mu.Lock()
	ws := m.sessionLocked(session).workspace
	m.mu.Unlock()
	if ws == "" {
		return "", &UserError{"downloads are saved into the workspace, and this session has none"}
	}
	d, err := m.awaitDownload(ctx, session, name)
	if err != nil {
		return "", err
	}
	select {
	case <-d.done:
	case <-ctx.Done():
		return "", &UserError{"the download " + d.name + " has not finished"}
	}
	m.mu.Lock()
	state := d.state
	m.mu.Unlock()
	if state != proto.BrowserDownloadProgressStateCompleted {
		return "", &UserError{fmt.Sprintf("the download %s %s", d.name, state)}
	}
	saved, err := saveInto(ws, dest, d.name, d.path)
	if err != nil {
		var user *UserError
		if errors.As(err, &user) {
			return "", err
		}
		return "", fmt.Errorf("save the download %s: %w", d.name, err)
	}
	return saved, nil
}

// saveInto copies src to dest inside the workspace ws (dest a folder there, or ending in a
// separator: into it as name). Every step goes through an os.Root on ws, so no link leads it
// outside; the file is created new (O_EXCL, so a link at its name is never written through)
// under a temporary name and renamed into place, never over a link or a folder.
func saveInto(ws, dest, name, src string) (string, error) {
	rel, err := filepath.Rel(ws, filepath.Clean(dest))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", &UserError{dest + " is outside the workspace: downloads are saved inside it"}
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return "", err
	}
	defer root.Close()
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		name = "download"
	}
	if fi, err := root.Stat(rel); err == nil && fi.IsDir() || strings.HasSuffix(dest, string(filepath.Separator)) {
		rel = filepath.Join(rel, name)
	}
	if rel == "." {
		return "", &UserError{"save needs a file name in the workspace"}
	}
	if fi, err := root.Lstat(rel); err == nil && !fi.Mode().IsRegular() {
		return "", &UserError{fmt.Sprintf("%s is a %s, not a file: the download is not saved over it", filepath.Join(ws, rel), kind(fi.Mode()))}
	}
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return "", userIfEscape(err, dest)
	}
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	tmp := filepath.Join(filepath.Dir(rel), fmt.Sprintf(".%s.tofu-download-%d", filepath.Base(rel), time.Now().UnixNano()))
	out, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", userIfEscape(err, dest)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Checked again just before: a link put at the name meanwhile is refused, not replaced.
		if fi, lerr := root.Lstat(rel); lerr == nil && !fi.Mode().IsRegular() {
			err = &UserError{fmt.Sprintf("%s is a %s, not a file: the download is not saved over it", filepath.Join(ws, rel), kind(fi.Mode()))}
		} else {
			err = root.Rename(tmp, rel)
		}
	}
	if err != nil {
		_ = root.Remove(tmp)
		return "", userIfEscape(err, dest)
	}
	return filepath.Join(ws, rel), nil
}

func kind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "folder"
	}
	return "special file"
}

// userIfEscape says plainly that a path led outside the workspace (os.Root refused it).
func userIfEscape(err error, dest string) error {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return &UserError{dest + " leads outside the workspace (through a link): downloads are saved inside it"}
	}
	return err
}

// awaitDownload finds the session's download called name, waiting for one to begin: a click
// reports before Chromium tells that the download it started began, and under load that can
// come well after the next step.
func (m *Manager) awaitDownload(ctx context.Context, session, name string) (*download, error) {
	grace := time.NewTimer(m.o.DownloadGrace)
	defer grace.Stop()
	for {
		m.mu.Lock()
		if s := m.sessions[session]; s != nil {
			for i := len(s.downloads) - 1; i >= 0; i-- {
				if name == "" || s.downloads[i].name == name {
					d := s.downloads[i]
					m.mu.Unlock()
					return d, nil
				}
			}
		}
		began := m.began
		m.mu.Unlock()
		select {
		case <-began:
		case <-grace.C:
			return nil, &UserError{fmt.Sprintf("no download called %q in this session", name)}
		case <-ctx.Done():
			return nil, &UserError{fmt.Sprintf("no download called %q in this session", name)}
		}
	}
}
