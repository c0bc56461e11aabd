package paper

import (
	"fmt"
	"io"
	"strconv"
)

// Tofu reads content streams with its own lexer instead of pdf.Interpret. That one boxed every
// operand in an interface (an allocation per number, two per keyword) and needed a check pass
// of its own first, because it spins on a hex string open at the end of a stream and holds any
// token whole (guard.go). This lexer reads the stream once, in constant memory: operands of the
// current operator live in slices reused for the whole stream, and the bounds of guard.go
// (maxToken, maxString, maxOperands, an unterminated hex string) are checked as it reads.

// operandKind is what an operand of a content-stream operator is.
type operandKind uint8

const (
	opOther  operandKind = iota // true, false, null, a stray delimiter
	opNumber                    // integer or real
	opString                    // (literal) or <hex>: its bytes
	opName                      // /Name, without the slash
	opArray                     // [ ... ]: elements in lexer.elems
	opDict                      // << ... >>: keys and values in lexer.elems
)

// operand is one operand: a number, or a range of the lexer's bytes or elements.
type operand struct {
	kind   operandKind
	num    float64
	lo, hi int32
}

// lexer tokenizes a content stream and hands each operator with its operands to a callback.
type lexer struct {
	r        io.Reader
	buf      []byte
	pos, end int
	done     bool // the reader returned an error or EOF

	ops   []operand // operands since the last operator
	elems []operand // elements of the arrays and dictionaries among them
	bytes []byte    // bytes of the strings and names among them
	open  []int     // positions in ops where an array or dictionary opened
	count int       // operands since the last operator, for maxOperands
	word  []byte    // the current keyword
}

// newLexer returns a lexer with its buffers; reset points it at a stream.
func newLexer() *lexer {
	return &lexer{buf: make([]byte, 32<<10)}
}

func (l *lexer) reset(r io.Reader) {
	l.r, l.pos, l.end, l.done = r, 0, 0, false
	l.clear()
}

func (l *lexer) clear() {
	l.ops, l.elems, l.bytes, l.open, l.count = l.ops[:0], l.elems[:0], l.bytes[:0], l.open[:0], 0
}

// fill reads more input; false at the end of the stream or on a read error (damaged
// compressed data ends the stream quietly, as it ended pdf.Interpret).
func (l *lexer) fill() bool {
	for !l.done {
		n, err := l.r.Read(l.buf)
		l.pos, l.end = 0, n
		if err != nil {
			l.done = true
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// next returns the next byte; ok is false at the end.
func (l *lexer) next() (byte, bool) {
	if l.pos >= l.end && !l.fill() {
		return 0, false
	}
	c := l.buf[l.pos]
	l.pos++
	return c, true
}

// peek returns the next byte without reading it.
func (l *lexer) peek() (byte, bool) {
	if l.pos >= l.end && !l.fill() {
		return 0, false
	}
	return l.buf[l.pos], true
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("malformed content stream: "+format, args...)
}

// run reads the stream to its end, calling do for each operator with its operands; the
// operands' strings are valid during the call only. It returns the first input that breaks
// a bound.
func (l *lexer) run(do func(op []byte, args []operand)) error {
	for {
		c, ok := l.next()
		if !ok {
			return nil
		}
		switch {
		case isPDFSpace(c):
		case c == '%':
			for c != '\n' && c != '\r' {
				if c, ok = l.next(); !ok {
					return nil
				}
			}
		case c == '(':
			if err := l.literal(); err != nil {
				return err
			}
		case c == '<':
			if n, ok := l.peek(); ok && n == '<' {
				l.pos++
				if err := l.push(operand{}); err != nil {
					return err
				}
				l.open = append(l.open, len(l.ops)-1)
				continue
			}
			if err := l.hex(); err != nil {
				return err
			}
		case c == '[':
			if err := l.push(operand{}); err != nil {
				return err
			}
			l.open = append(l.open, len(l.ops)-1)
		case c == ']' || c == '>':
			if c == '>' {
				if n, ok := l.peek(); ok && n == '>' {
					l.pos++
				}
			}
			if err := l.close(c == ']'); err != nil {
				return err
			}
		case c == ')':
			if err := l.push(operand{}); err != nil {
				return err
			}
		case c == '/':
			if err := l.name(); err != nil {
				return err
			}
		default:
			// A number or a keyword: a run of regular characters ({ and } stand alone).
			long, err := l.regular(c)
			if err != nil {
				return err
			}
			if long {
				// Past maxWord bytes no number or operator is meant: an operand of no use.
				if err := l.push(operand{}); err != nil {
					return err
				}
				continue
			}
			word := l.word
			if num, ok := parseNumber(word); ok {
				if err := l.push(operand{kind: opNumber, num: num}); err != nil {
					return err
				}
				continue
			}
			switch string(word) {
			case "true", "false", "null":
				if err := l.push(operand{}); err != nil {
					return err
				}
				continue
			}
			l.open = l.open[:0] // an operator inside an array ends it
			do(word, l.ops)
			l.clear()
			if string(word) == "ID" {
				l.skipImage()
			}
		}
	}
}

// push adds an operand, counting it against maxOperands.
func (l *lexer) push(o operand) error {
	if l.count++; l.count > maxOperands {
		return malformed("more than %d operands without an operator", maxOperands)
	}
	l.ops = append(l.ops, o)
	return nil
}

// close ends the innermost open array (or dictionary): its elements move to elems and it
// becomes one operand. A stray ] or > counts as an operand of its own.
func (l *lexer) close(array bool) error {
	if len(l.open) == 0 {
		return l.push(operand{})
	}
	at := l.open[len(l.open)-1]
	l.open = l.open[:len(l.open)-1]
	lo := len(l.elems)
	l.elems = append(l.elems, l.ops[at+1:]...)
	kind := opArray
	if !array {
		kind = opDict
	}
	l.ops[at] = operand{kind: kind, lo: int32(lo), hi: int32(len(l.elems))}
	l.ops = l.ops[:at+1]
	if l.count++; l.count > maxOperands {
		return malformed("more than %d operands without an operator", maxOperands)
	}
	return nil
}

// maxWord is the longest number or operator kept: longer runs are only counted.
const maxWord = 256

// regular reads a run of regular characters starting with c into l.word; long reports a run
// longer than maxWord, of which l.word holds the start.
func (l *lexer) regular(c byte) (long bool, err error) {
	l.word = append(l.word[:0], c)
	if c == '{' || c == '}' {
		return false, nil
	}
	n := 1
	for {
		if l.pos >= l.end && !l.fill() {
			return n > maxWord, nil
		}
		// The run is scanned in the buffer: most tokens are a few bytes.
		i := l.pos
		for i < l.end && !isPDFSpace(l.buf[i]) && !isPDFDelim(l.buf[i]) && l.buf[i] != '{' && l.buf[i] != '}' {
			i++
		}
		if len(l.word) < maxWord {
			l.word = append(l.word, l.buf[l.pos:min(i, l.pos+maxWord)]...)
		}
		n += i - l.pos
		l.pos = i
		if n > maxToken {
			return true, malformed("a token longer than %d bytes", maxToken)
		}
		if i < l.end {
			return n > maxWord, nil
		}
	}
}

// name reads a /Name after its slash; #xx is a byte in hex.
func (l *lexer) name() error {
	lo, n := len(l.bytes), 0
	for {
		c, ok := l.peek()
		if !ok || isPDFSpace(c) || isPDFDelim(c) {
			break
		}
		l.pos++
		if c == '#' {
			if h, ok := l.hexPair(); ok {
				c = h
			}
		}
		// Names are at most 127 bytes (PDF 32000-1, C.2): a longer one is kept in part.
		if n++; n <= maxWord {
			l.bytes = append(l.bytes, c)
		} else if n > maxToken {
			return malformed("a token longer than %d bytes", maxToken)
		}
	}
	return l.push(operand{kind: opName, lo: int32(lo), hi: int32(len(l.bytes))})
}

// hexPair reads two hex digits after a # in a name; when they are not, nothing is read.
func (l *lexer) hexPair() (byte, bool) {
	if l.end-l.pos < 2 {
		return 0, false
	}
	a, b := unhexDigit(l.buf[l.pos]), unhexDigit(l.buf[l.pos+1])
	if a < 0 || b < 0 {
		return 0, false
	}
	l.pos += 2
	return byte(a<<4 | b), true
}

func unhexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// literal reads a (string) after its "(", with nesting and escapes. At the end of the
// stream an open string ends too.
func (l *lexer) literal() error {
	lo := len(l.bytes)
	depth := 1
	for {
		c, ok := l.next()
		if !ok {
			break
		}
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return l.pushString(lo)
			}
		case '\\':
			c, ok = l.next()
			if !ok {
				return l.pushString(lo)
			}
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 'b':
				c = '\b'
			case 't':
				c = '\t'
			case 'f':
				c = '\f'
			case '\r', '\n':
				if n, ok := l.peek(); ok && c == '\r' && n == '\n' {
					l.pos++
				}
				continue // a line continuation
			case '0', '1', '2', '3', '4', '5', '6', '7':
				x := int(c - '0')
				for i := 0; i < 2; i++ {
					n, ok := l.peek()
					if !ok || n < '0' || n > '7' {
						break
					}
					l.pos++
					x = x*8 + int(n-'0')
				}
				c = byte(x)
			}
			// Any other escaped byte stands for itself.
		}
		l.bytes = append(l.bytes, c)
		if len(l.bytes)-lo > maxString {
			return malformed("a string longer than %d bytes", maxString)
		}
	}
	return l.pushString(lo)
}

func (l *lexer) pushString(lo int) error {
	return l.push(operand{kind: opString, lo: int32(lo), hi: int32(len(l.bytes))})
}

// hex reads a <hex string> after its "<"; white space is skipped and an odd last digit is
// followed by 0. Unterminated, it refuses the stream (pdf.Interpret's lexer spun on it).
func (l *lexer) hex() error {
	lo := len(l.bytes)
	n, digits := 0, 0
	var cur byte
	for {
		c, ok := l.next()
		if !ok {
			return malformed("unterminated hex string")
		}
		if c == '>' {
			break
		}
		if n++; n > 2*maxString {
			return malformed("a hex string longer than %d bytes", 2*maxString)
		}
		v := unhexDigit(c)
		if v < 0 {
			continue
		}
		cur = cur<<4 | byte(v)
		if digits++; digits%2 == 0 {
			l.bytes = append(l.bytes, cur)
			cur = 0
		}
	}
	if digits%2 == 1 {
		l.bytes = append(l.bytes, cur<<4)
	}
	return l.pushString(lo)
}

// skipImage skips an inline image's data after ID, up to the EI that follows white space
// and is followed by white space, a delimiter or the end.
func (l *lexer) skipImage() {
	prev := byte(' ')
	c, ok := l.next()
	if !ok {
		return
	}
	if !isPDFSpace(c) {
		l.pos-- // no white space after ID: the data starts here
		prev = 0
	}
	for {
		c, ok := l.next()
		if !ok {
			return
		}
		if c == 'E' && isPDFSpace(prev) {
			if n, ok := l.peek(); ok && n == 'I' {
				l.pos++
				if n, ok := l.peek(); !ok || isPDFSpace(n) || isPDFDelim(n) {
					return
				}
			}
		}
		prev = c
	}
}

// parseNumber reads a PDF integer or real ("12", "-3.5", ".5", "4."); anything else, such as
// "1.2.3", is not a number and, like pdf.Interpret, the lexer makes it a keyword. Up to 15
// digits the value is built exactly as strconv.ParseFloat would round it.
func parseNumber(w []byte) (float64, bool) {
	i := 0
	if len(w) > 0 && (w[0] == '+' || w[0] == '-') {
		i++
	}
	if i == len(w) {
		return 0, false
	}
	var mant uint64
	digits, frac, dots := 0, 0, 0
	for _, c := range w[i:] {
		switch {
		case c == '.':
			if dots++; dots > 1 {
				return 0, false
			}
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			if mant > 0 || digits > 0 {
				digits++
			}
			if dots == 1 {
				frac++
			}
		default:
			return 0, false
		}
	}
	if dots == 1 && len(w)-i == 1 {
		return 0, false // a lone "."
	}
	if digits > 15 || frac > 22 {
		f, err := strconv.ParseFloat(string(w), 64)
		if err != nil {
			return 0, false
		}
		return f, true
	}
	f := float64(mant)
	if frac > 0 {
		f /= pow10[frac]
	}
	// "-0" is the integer 0; "-0.0" the real -0, as strconv reads them.
	if w[0] == '-' && (dots == 1 || mant != 0) {
		f = -f
	}
	return f, true
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
