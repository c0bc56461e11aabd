package app

import "path/filepath"

// PaperOpen is a paper the desktop asked the window to show ("Open with Tofu" on a PDF in the
// file manager, or `tofu open FILE.pdf`): the paper imported, or why it could not be.
type PaperOpen struct {
	ID    string `json:"id,omitempty"`
	Name  string `json:"name"`
	Error string `json:"error,omitempty"`
}

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
	p.mu.Lock()
	p.opens = append(p.opens, o)
	p.mu.Unlock()
	p.chat.emit.Emit(TopicPapers, map[string]any{"kind": "open"})
	return info, err
}

// TakeOpens returns the papers the desktop asked to show since the last call, oldest first,
// and forgets them.
func (p *PaperService) TakeOpens() []PaperOpen {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.opens
	p.opens = nil
	return out
}
