package paper

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// CJK fonts without a ToUnicode map name glyphs by CID in a registered
// collection (Adobe-Japan1, -GB1, -CNS1, -Korea1). The CID-to-Unicode tables
// are not shipped with Tofu (poppler-data's are GPL); they are read from
// poppler-data when it is installed, which is where pdftotext gets them too.
var cidDirs = []string{
	"/usr/share/poppler/cidToUnicode",
	"/usr/local/share/poppler/cidToUnicode",
	"/opt/homebrew/share/poppler/cidToUnicode",
}

var cidTables sync.Map // collection name -> []rune (nil when unavailable)

func cidToUnicode(collection string) []rune {
	if t, ok := cidTables.Load(collection); ok {
		return t.([]rune)
	}
	var table []rune
	for _, dir := range cidDirs {
		f, err := os.Open(filepath.Join(dir, collection))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			v, err := strconv.ParseUint(strings.TrimSpace(sc.Text()), 16, 32)
			if err != nil {
				v = 0
			}
			table = append(table, rune(v))
		}
		f.Close()
		break
	}
	cidTables.Store(collection, table)
	return table
}
