package paper

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var (
	newStyleID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{4}\.\d{4,5})(v\d+)?$`) })
	oldStyleID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z\-]+(\.[A-Z]{2})?/\d{7})(v\d+)?$`) })
)

// ParseArxivID accepts an arXiv id ("2401.12345", "2401.12345v2", "arXiv:2401.12345",
// "hep-th/9901001") or an arxiv.org abs/pdf URL, and returns the id.
func ParseArxivID(s string) (string, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "arXiv:"), "arxiv:")
	for _, prefix := range []string{"https://", "http://"} {
		s = strings.TrimPrefix(s, prefix)
	}
	for _, host := range []string{"www.arxiv.org/", "arxiv.org/", "export.arxiv.org/"} {
		if rest, ok := strings.CutPrefix(s, host); ok {
			rest = strings.TrimPrefix(strings.TrimPrefix(rest, "abs/"), "pdf/")
			s = strings.TrimSuffix(strings.TrimSuffix(rest, "/"), ".pdf")
		}
	}
	if newStyleID().MatchString(s) || oldStyleID().MatchString(s) {
		return s, nil
	}
	return "", fmt.Errorf("%q is not an arXiv id or URL (e.g. 2401.12345 or https://arxiv.org/abs/2401.12345)", s)
}
