package library

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
)

// ReportPrompt is the user message that asks for a paper's report; Augment replaces it with
// the report prompt and the paper's text.
const ReportPrompt = "Write the structured report of this paper."

// reportText returns the text of the paper's last complete report ("" when there is none).
func (l *Library) reportText(info Info) (string, error) {
	if info.Report == "" {
		return "", nil
	}
	evs, err := l.store.Events(info.Report)
	if err != nil {
		return "", fmt.Errorf("read the report session of paper %s: %w", info.ID, err)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		var a store.AssistantMessage
		if evs[i].Type == store.EventAssistant && evs[i].Decode(&a) == nil && !a.Interrupted && a.StopReason != "error" && a.Text != "" {
			return a.Text, nil
		}
	}
	return "", nil
}

// ReportMarkdown returns the report as a Markdown document for export.
func (l *Library) ReportMarkdown(paperID string) (string, error) {
	info, err := l.Info(paperID)
	if err != nil {
		return "", err
	}
	text, err := l.reportText(info)
	if err != nil {
		return "", err
	}
	if text == "" {
		return "", errors.New("this paper has no report yet: generate one first")
	}
	return header(info, "Report") + text + "\n", nil
}

// Export returns the paper's report (what "report") or its translation into lang (what
// "translation") as Markdown, with a file name to suggest for it.
func (l *Library) Export(paperID, what, lang string) (md, name string, err error) {
	info, err := l.Info(paperID)
	if err != nil {
		return "", "", err
	}
	var suffix string
	switch what {
	case "report":
		md, err = l.ReportMarkdown(paperID)
		suffix = "report"
	case "translation":
		md, err = l.TranslationMarkdown(paperID, lang)
		suffix = strings.ToLower(lang)
	default:
		return "", "", fmt.Errorf("export %q: want report or translation", what)
	}
	return md, exportFileName(info.Title, suffix), err
}

// exportFileName is "<title, shortened>-<suffix>.md" with only safe characters.
func exportFileName(title, suffix string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 60 {
			break
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "paper"
	}
	return name + "-" + suffix + ".md"
}

func header(info Info, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — %s\n\n", info.Title, what)
	if len(info.Authors) > 0 {
		b.WriteString(strings.Join(info.Authors, ", "))
		if info.Year > 0 {
			fmt.Fprintf(&b, " (%d)", info.Year)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}
