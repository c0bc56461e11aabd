package paper

import (
	"io"

	"github.com/ledongthuc/pdf"
)

// ledongthuc/pdf's lexer spins forever on a hex string that is still open
// at the end of a stream (it reads an endless run of "\n" at EOF). Streams
// are checked before they reach pdf.Interpret; found by FuzzExtract.

// streamSafe reports whether a content stream (or array of them, read as one)
// can be handed to pdf.Interpret.
func streamSafe(strm pdf.Value) bool {
	var rds []io.Reader
	if strm.Kind() == pdf.Array {
		for i := 0; i < strm.Len(); i++ {
			rds = append(rds, strm.Index(i).Reader())
		}
	} else {
		rds = append(rds, strm.Reader())
	}
	data, _ := io.ReadAll(io.LimitReader(io.MultiReader(rds...), 256<<20))
	return hexClosed(data)
}

// hexClosed scans PDF tokens and reports false if a <hex> string never ends.
func hexClosed(data []byte) bool {
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '%':
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
		case '(':
			depth := 1
			for i++; i < len(data) && depth > 0; i++ {
				switch data[i] {
				case '\\':
					i++
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			i--
		case '<':
			if i+1 < len(data) && data[i+1] == '<' {
				i++
				continue
			}
			j := i + 1
			for j < len(data) && data[j] != '>' {
				j++
			}
			if j >= len(data) {
				return false
			}
			i = j
		}
	}
	return true
}
