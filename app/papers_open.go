package app

import (
	"path/filepath"

	"github.com/tofu-research/tofu/backend/paper/library"
)

// PaperOpen is a paper the desktop asked the window to show (library.Opened).
type PaperOpen = library.Opened

// OpenPaper imports the PDF at path (relative to dir) and asks the UI to show it in the
// reader: the request waits until the UI takes it (TakeOpens), so one made before the window
// has loaded is not lost, and the UI is told at once when it listens. A failure is returned and
// queued too, so the window says why. It is the App's, not a service's: the page cannot ask to
// read a path of its choosing.
func (a *App) OpenPaper(path, dir string) (PaperInfo, error) {
	p := a.Papers
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	info, err := p.ImportPath(path)
	o := PaperOpen{ID: info.ID, Name: filepath.Base(path)}
	if err != nil {
		o = PaperOpen{Name: o.Name, Error: err.Error()}
	}
	library.Queue(p.Shelf, o)
	p.chat.emit.Emit(TopicPapers, map[string]any{"kind": "open"})
	return info, err
}
