package paper

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// lexString runs the lexer over s and prints each operator with its operands.
func lexString(s string) (string, error) {
	l := newLexer()
	l.reset(strings.NewReader(s))
	var out []string
	err := l.run(func(op []byte, args []operand) {
		var parts []string
		for _, a := range args {
			parts = append(parts, l.format(a))
		}
		out = append(out, fmt.Sprintf("%s(%s)", op, strings.Join(parts, " ")))
	})
	return strings.Join(out, " "), err
}

func (l *lexer) format(a operand) string {
	switch a.kind {
	case opNumber:
		return strconv.FormatFloat(a.num, 'g', -1, 64)
	case opString:
		return strconv.Quote(string(l.bytes[a.lo:a.hi]))
	case opName:
		return "/" + string(l.bytes[a.lo:a.hi])
	case opArray, opDict:
		var parts []string
		for _, e := range l.elems[a.lo:a.hi] {
			parts = append(parts, l.format(e))
		}
		if a.kind == opDict {
			return "<<" + strings.Join(parts, " ") + ">>"
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return "?"
}

// The lexer reads what content streams hold, the way pdf.Interpret read it.
func TestLexer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"BT /F1 12 Tf 72 720 Td (Hello) Tj ET", `BT() Tf(/F1 12) Td(72 720) Tj("Hello") ET()`},
		{"[(A) -300.5 (B)] TJ", `TJ(["A" -300.5 "B"])`},
		{`(a\)b\(c\\d\n\101\0612) Tj`, `Tj("a)b(c\\d\nA12")`},
		{"(nested (parens) here) Tj", `Tj("nested (parens) here")`},
		{"(line \\\r\ncontinued) Tj", `Tj("line continued")`},
		{"<48 65 6c6C6f> Tj <414> Tj", `Tj("Hello") Tj("A@")`},
		{"/Span << /ActualText (x) /N [1 2] >> BDC EMC", `BDC(/Span <</ActualText "x" /N [1 2]>>) EMC()`},
		{"/A#20B Do", `Do(/A B)`},
		{"% a comment (not a string\n1 0 0 1 .5 -3. cm", `cm(1 0 0 1 0.5 -3)`},
		{"-0 +4 1.2.3", `1.2.3(0 4)`},
		{"true false null q", `q(? ? ?)`},
		{"BI /W 2 /H 1 ID \x00E\xffEI EIx\nEI 7 Tw", `BI() ID(/W 2 /H 1) Tw(7)`},
		{"{ 1 } x", `{() }(1) x()`},
		{"BT (never closed", `BT()`},
	} {
		got, err := lexString(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%q:\n got %s (%v)\nwant %s", tc.in, got, err, tc.want)
		}
	}
}

// The lexer refuses, in constant memory, what guard.go's check refuses.
func TestLexerBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"an open hex string", "BT <48656c", "unterminated hex string"},
		{"an endless number", strings.Repeat("0", maxToken+1), "a token longer than"},
		{"an endless name", "/" + strings.Repeat("n", maxToken+1), "a token longer than"},
		{"an endless string", "(" + strings.Repeat("s", maxString+1) + ")", "a string longer than"},
		{"an endless hex string", "<" + strings.Repeat("4", 2*maxString+1) + ">", "a hex string longer than"},
		{"operands without an operator", strings.Repeat("1 ", maxOperands+1), "operands without an operator"},
		{"operands with operators", strings.Repeat("1 2 m ", maxOperands), ""},
		{"a long token under the bound", strings.Repeat("7", 10*maxWord) + " Tw", ""},
	} {
		_, err := lexString(tc.in)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Numbers come out as strconv reads them, bit for bit: positions and sizes must not move.
func TestParseNumber(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0", "-0", "-0.0", "12", "+7", "-3.25", ".5", "4.", "0.1", "612.0001",
		"-.000001", "123456789012345", "1234567890123456789", "0.30000000000000004", "3.14159265358979323846",
		"000012.5000", "99999999999999999999999"} {
		got, ok := parseNumber([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		if !strings.Contains(s, ".") {
			i, _ := strconv.ParseFloat(strings.TrimPrefix(s, "-"), 64)
			if strings.HasPrefix(s, "-") {
				i = -i
			}
			want = i + 0 // an integer: -0 is 0
		}
		if !ok || err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s: %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "+", "-", ".", "1.2.3", "1e5", "0x10", "--1", "1-"} {
		if _, ok := parseNumber([]byte(s)); ok {
			t.Errorf("%q read as a number", s)
		}
	}
}

// FuzzLexer: any stream ends, and one that guard.go's check accepts (the check reads
// ToUnicode streams still) the lexer accepts too; inline image data aside, which only the
// lexer skips.
func FuzzLexer(f *testing.F) {
	for _, seed := range []string{
		"BT /F1 12 Tf (Hello) Tj ET", "BT <48656c", "(open", "<< /A [1 2 (x)] >> BDC",
		"% comment\n1 0 0 1 0 0 cm", "BI /W 1 ID \x00\xff EI", "[[[1] 2] (a)] TJ", "-.5 4. 1.2.3",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := lexString(string(data))
		if err != nil && !strings.Contains(string(data), "ID") && scanContent(bufio.NewReader(bytes.NewReader(data))) == nil {
			t.Fatalf("the check accepts what the lexer refuses: %v", err)
		}
	})
}
