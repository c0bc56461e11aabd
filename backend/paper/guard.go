package paper

import (
	"bufio"
	"fmt"
	"io"
	"sync"

	"github.com/ledongthuc/pdf"
)

// ledongthuc/pdf's lexer spins forever on a hex string that is still open at the end of a
// stream (it reads an endless run of "\n" at EOF; found by FuzzExtract), holds a whole token
// in memory however long (a stream of a billion "0" is one number), and its interpreter keeps
// every operand until the next operator. Page content no longer goes through it (lexer.go
// reads it once with the same bounds); a ToUnicode CMap that ledongthuc's own CMap parser
// will read is checked here first, token by token in constant memory, the bytes read
// counting against the document's budget.

// checkContent reads a content stream (or array of them, read as one) and returns an error
// when it cannot be handed to pdf.Interpret safely, or when the document's budget runs out.
func checkContent(strm pdf.Value, spent *budget) error {
	rd, done := openContent(strm)
	defer done()
	c := &counter{r: rd, spent: spent}
	br := scanBuffers.Get().(*bufio.Reader)
	br.Reset(c)
	err := scanContent(br)
	br.Reset(nil)
	scanBuffers.Put(br)
	if c.err != nil {
		return c.err
	}
	return err
}

// scanBuffers are checkContent's read buffers, kept from one check to the next: a font's
// ToUnicode map is checked once per font, and a 32 KB buffer each was a tenth of what an
// extraction allocated (naacl2006: 14 fonts, 0.44 of 5.6 MB).
var scanBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// openContent reads a content stream, or an array of them as one; done closes them, which
// gives their zlib readers back for the next streams (third_party/pdf inflate.go).
func openContent(strm pdf.Value) (rd io.Reader, done func()) {
	var rcs []io.ReadCloser
	if strm.Kind() == pdf.Array {
		for i := 0; i < strm.Len(); i++ {
			rcs = append(rcs, strm.Index(i).Reader())
		}
	} else {
		rcs = append(rcs, strm.Reader())
	}
	rds := make([]io.Reader, len(rcs))
	for i, rc := range rcs {
		rds[i] = rc
	}
	return io.MultiReader(rds...), func() {
		for _, rc := range rcs {
			rc.Close()
		}
	}
}

// counter spends what is read from r; past the budget or maxStreamInflate it stops with err.
type counter struct {
	r     io.Reader
	spent *budget
	n     int64
	err   error
}

func (c *counter) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	switch {
	case c.n > maxStreamInflate:
		c.err = overLimit(fmt.Sprintf("a content stream inflates to more than %d MB", maxStreamInflate>>20))
	case c.spent != nil && !c.spent.take(int64(n)):
		c.err = c.spent.err()
	}
	if c.err != nil {
		return n, c.err
	}
	return n, err
}

// scanContent tokenizes a content stream the way pdf.Interpret's lexer does and reports the
// first input that would make it spin or hold too much. Read errors (damaged compressed
// data) end the scan quietly: the lexer stops at them too.
func scanContent(r io.ByteReader) error {
	operands := 0
	operand := func() error {
		if operands++; operands > maxOperands {
			return fmt.Errorf("malformed content stream: more than %d operands without an operator", maxOperands)
		}
		return nil
	}
	for {
		c, err := r.ReadByte()
		if err != nil {
			return nil
		}
		switch {
		case isPDFSpace(c):
		case c == '%':
			for c != '\n' && c != '\r' {
				if c, err = r.ReadByte(); err != nil {
					return nil
				}
			}
		case c == '(':
			if err := skipLiteral(r); err != nil {
				return err
			}
			if err := operand(); err != nil {
				return err
			}
		case c == '<':
			next, err := r.ReadByte()
			if err != nil {
				return fmt.Errorf("malformed content stream: unterminated hex string")
			}
			if next != '<' {
				if err := skipHex(r, next); err != nil {
					return err
				}
			}
			if err := operand(); err != nil {
				return err
			}
		case c == '>' || c == '[' || c == ']' || c == '{' || c == '}' || c == ')':
			if err := operand(); err != nil {
				return err
			}
		default:
			// A name, number or keyword: a run of regular characters.
			isOperator := c != '/' && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.'
			n := 1
			for {
				b, err := r.ReadByte()
				if err != nil {
					break
				}
				if isPDFSpace(b) || isPDFDelim(b) {
					if br, ok := r.(*bufio.Reader); ok {
						br.UnreadByte()
					}
					break
				}
				if n++; n > maxToken {
					return fmt.Errorf("malformed content stream: a token longer than %d bytes", maxToken)
				}
			}
			if isOperator {
				operands = 0
			} else if err := operand(); err != nil {
				return err
			}
		}
	}
}

// skipLiteral reads a (string) after its "(", with nesting and escapes; at the end of the
// stream the lexer stops too, so an open string is not an error.
func skipLiteral(r io.ByteReader) error {
	depth, n := 1, 0
	for depth > 0 {
		c, err := r.ReadByte()
		if err != nil {
			return nil
		}
		switch c {
		case '\\':
			r.ReadByte()
		case '(':
			depth++
		case ')':
			depth--
		}
		if n++; n > maxString {
			return fmt.Errorf("malformed content stream: a string longer than %d bytes", maxString)
		}
	}
	return nil
}

// skipHex reads a <hex string> whose first byte after "<" is first.
func skipHex(r io.ByteReader, first byte) error {
	c, n := first, 0
	for c != '>' {
		var err error
		if c, err = r.ReadByte(); err != nil {
			return fmt.Errorf("malformed content stream: unterminated hex string")
		}
		if n++; n > 2*maxString {
			return fmt.Errorf("malformed content stream: a hex string longer than %d bytes", 2*maxString)
		}
	}
	return nil
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}
