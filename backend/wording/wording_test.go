package wording

import "testing"

func TestPluralAndThousands(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Plural(0, "page"), "0 pages"},
		{Plural(1, "page"), "1 page"},
		{Plural(2, "match", "matches"), "2 matches"},
		{Plural(1, "match", "matches"), "1 match"},
		{Plural(12345, "token"), "12345 tokens"},
		{Thousands(0), "0"},
		{Thousands(999), "999"},
		{Thousands(1000), "1,000"},
		{Thousands(42550), "42,550"},
		{Thousands(-1234567), "-1,234,567"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
