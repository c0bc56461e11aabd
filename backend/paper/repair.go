package paper

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// A Repairer rewrites a PDF that ledongthuc/pdf cannot open directly: it parses it, decrypts
// it with password, rebuilds a broken cross-reference table from the objects it finds and
// writes the file again. Its error wraps ErrWrongPassword when password does not open the file.
//
// The extractor links no repairer of its own: backend/paper/pdfrepair is one (pdfcpu, in
// process; importing it installs it), and tofu-pdf, which leaves pdfcpu out to start fast,
// installs one that asks the tofu program beside it (backend/paper/worker/serve).
type Repairer func(data []byte, password string) ([]byte, error)

// ErrWrongPassword is what a Repairer's error wraps when the password does not open the file.
var ErrWrongPassword = errors.New("wrong password")

// ErrNoRepairer: the file needs repair and this program has no Repairer.
var ErrNoRepairer = errors.New("this program cannot repair PDFs")

var repairer atomic.Pointer[Repairer]

// SetRepairer installs r as the program's Repairer (the last one installed wins).
func SetRepairer(r Repairer) { repairer.Store(&r) }

// rewrite repairs data with the program's Repairer, never panicking.
func rewrite(data []byte, password string) (out []byte, err error) {
	r := repairer.Load()
	if r == nil || *r == nil {
		return nil, ErrNoRepairer
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("pdfcpu: %v", p)
		}
	}()
	return (*r)(data, password)
}
