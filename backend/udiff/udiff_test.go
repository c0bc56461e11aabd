package udiff

import "testing"

func TestUnified(t *testing.T) {
	t.Parallel()
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	cases := map[string]struct {
		new, want string
		st        Stats
	}{
		"same": {old, "", Stats{}},
		"middle": {"a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n",
			"--- a/x\n+++ b/x\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n", Stats{1, 1}},
		"two hunks": {"A\nb\nc\nd\ne\nf\ng\nh\ni\nJ\n",
			"--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n d\n@@ -7,4 +7,4 @@\n g\n h\n i\n-j\n+J\n", Stats{2, 2}},
		"insert at end": {old + "k\n", "--- a/x\n+++ b/x\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n", Stats{1, 0}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, st := Unified("x", old, c.new, 3)
			if got != c.want || st != c.st {
				t.Errorf("got %q %v\nwant %q %v", got, st, c.want, c.st)
			}
		})
	}
	if got, _ := Unified("n", "", "x\n", 3); got != "--- a/n\n+++ b/n\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("new file: %q", got)
	}
}
