package paper

import (
	"testing"
)

func TestParseArxivID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"2401.12345":                             "2401.12345",
		"2401.12345v2":                           "2401.12345v2",
		"arXiv:2401.12345":                       "2401.12345",
		"https://arxiv.org/abs/2401.12345":       "2401.12345",
		"https://arxiv.org/pdf/2401.12345v1.pdf": "2401.12345v1",
		"arxiv.org/abs/hep-th/9901001":           "hep-th/9901001",
		" 1706.03762 ":                           "1706.03762",
	} {
		if got, err := ParseArxivID(in); err != nil || got != want {
			t.Errorf("ParseArxivID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "hello", "https://example.com/abs/2401.12345", "2401.1"} {
		if _, err := ParseArxivID(bad); err == nil {
			t.Errorf("ParseArxivID(%q) accepted", bad)
		}
	}
}
