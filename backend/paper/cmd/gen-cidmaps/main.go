// Command gen-cidmaps writes the CID-to-Unicode tables that backend/paper embeds
// (backend/paper/cidmaps/*.bin) from Adobe's UCS2 CMaps (cmap-resources,
// BSD-3-Clause), as shipped in Debian's poppler-data under /usr/share/poppler/cMap.
//
//	go run ./backend/paper/cmd/gen-cidmaps [-src /usr/share/poppler/cMap] [-out backend/paper/cidmaps]
//
// Each table maps CID i to the first Unicode code point of its UCS2 mapping
// (0 when unmapped), written as a little-endian uint32 per CID: 360 KB for the
// four tables (930 KB of CMap text), read in place with nothing to decode.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// The collections whose fonts PDFs name with Identity encodings in practice.
var collections = []string{"Adobe-Japan1", "Adobe-GB1", "Adobe-CNS1", "Adobe-Korea1"}

func main() {
	src := flag.String("src", "/usr/share/poppler/cMap", "directory holding <collection>/<collection>-UCS2")
	out := flag.String("out", filepath.FromSlash("backend/paper/cidmaps"), "directory to write <collection>.bin into")
	flag.Parse()
	for _, c := range collections {
		if err := convert(filepath.Join(*src, c, c+"-UCS2"), filepath.Join(*out, c+".bin")); err != nil {
			fmt.Fprintln(os.Stderr, "gen-cidmaps:", err)
			os.Exit(1)
		}
	}
}

func convert(in, out string) error {
	text, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("read CMap: %w", err)
	}
	table, err := parseUCS2(text)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	// Little-endian code points indexed by CID, stored as they are: Tofu reads a CID's entry in
	// place from the embedded file, with nothing to inflate or decode first (inflating and
	// decoding the whole table was a twentieth of extracting a one-page Japanese paper).
	var buf bytes.Buffer
	for _, r := range table {
		buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(r)))
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	fmt.Printf("%s: %d CIDs, %d bytes\n", out, len(table), buf.Len())
	return nil
}

// parseUCS2 reads the bfchar and bfrange sections of a CID-keyed UCS2 CMap,
// whose source codes are CIDs and whose destinations are UTF-16BE strings.
func parseUCS2(text []byte) ([]rune, error) {
	var table []rune
	set := func(cid int, r rune) {
		for len(table) <= cid {
			table = append(table, 0)
		}
		table[cid] = r
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && (f[1] == "beginbfchar" || f[1] == "beginbfrange"):
			section = f[1]
			continue
		case line == "endbfchar" || line == "endbfrange":
			section = ""
			continue
		case section == "":
			continue
		}
		codes, err := hexes(f)
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", line, err)
		}
		switch {
		case section == "beginbfchar" && len(codes) == 2:
			set(cid(codes[0]), first(codes[1]))
		case section == "beginbfrange" && len(codes) == 3:
			lo, hi, r := cid(codes[0]), cid(codes[1]), first(codes[2])
			for c := lo; c <= hi; c++ {
				set(c, r+rune(c-lo))
			}
		default:
			return nil, fmt.Errorf("line %q: unexpected in %s", line, section)
		}
	}
	if len(table) == 0 {
		return nil, fmt.Errorf("no mappings")
	}
	return table, sc.Err()
}

func hexes(fields []string) ([][]byte, error) {
	var out [][]byte
	for _, f := range fields {
		if len(f) < 2 || f[0] != '<' || f[len(f)-1] != '>' {
			return nil, fmt.Errorf("%q is not a hex string", f)
		}
		b, err := hex.DecodeString(f[1 : len(f)-1])
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func cid(b []byte) int {
	n := 0
	for _, c := range b {
		n = n<<8 | int(c)
	}
	return n
}

// first decodes a UTF-16BE destination and keeps its first code point: the
// rest is a variation selector or a combining mark that text search ignores.
func first(b []byte) rune {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	if rs := utf16.Decode(u); len(rs) > 0 {
		return rs[0]
	}
	return 0
}
