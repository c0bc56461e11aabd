package library

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/store"
)

// Session returns the paper's Q&A or report session (store.PurposeQA or PurposeReport),
// creating it on first use.
func (l *Library) Session(paperID string, purpose store.Purpose) (string, error) {
	info, err := l.Info(paperID)
	if err != nil {
		return "", err
	}
	var existing string
	switch purpose {
	case store.PurposeQA:
		existing = info.QA
	case store.PurposeReport:
		existing = info.Report
	default:
		return "", fmt.Errorf("paper session %q: want %s or %s", purpose, store.PurposeQA, store.PurposeReport)
	}
	if existing != "" {
		if _, err := l.store.Session(existing); err == nil {
			return existing, nil
		}
	}
	label := map[store.Purpose]string{store.PurposeQA: "Q&A", store.PurposeReport: "Report"}[purpose]
	id, err := l.newSession(paperID, purpose, label+": "+info.Title)
	if err != nil {
		return "", err
	}
	_, err = l.update(paperID, func(i *Info) {
		if purpose == store.PurposeReport {
			i.Report = id
		} else {
			i.QA = id
		}
	})
	return id, err
}

// newSession creates a session linked to the paper.
func (l *Library) newSession(paperID string, purpose store.Purpose, title string) (string, error) {
	s, err := l.store.CreateSession(title)
	if err != nil {
		return "", fmt.Errorf("create the %s session of paper %s: %w", purpose, paperID, err)
	}
	if _, err := l.store.UpdateSession(s.ID, func(i *store.SessionInfo) { i.Paper, i.Purpose = paperID, purpose }); err != nil {
		return "", fmt.Errorf("link session %s to paper %s: %w", s.ID, paperID, err)
	}
	return s.ID, nil
}
