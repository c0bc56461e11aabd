package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tofu-research/tofu/backend/child"
	"github.com/tofu-research/tofu/backend/paper"
)

// RepairWork names the repair of a PDF among a child's kinds of work: backend/paper/pdfrepair
// serves it, in the tofu program.
const RepairWork = "pdf-repair"

// RepairRequest is what a child that repairs reads before the PDF's bytes.
type RepairRequest struct {
	Size     int64  `json:"size"`
	Password string `json:"password,omitempty"`
}

// RepairAnswer is its one answer: the repaired file, or why not (WrongPassword: the password
// did not open it).
type RepairAnswer struct {
	PDF           []byte `json:"pdf,omitempty"`
	Error         string `json:"error,omitempty"`
	WrongPassword bool   `json:"wrong_password,omitempty"`
}

// RepairInChild is the Repairer of a program that leaves pdfcpu out (tofu-pdf): the files it
// cannot open directly (damaged, or encrypted in a way ledongthuc/pdf does not read; a few
// in a hundred) go to a child of the tofu program beside it under lim, a process apart again.
func RepairInChild(lim child.Limits) paper.Repairer {
	return func(data []byte, password string) ([]byte, error) {
		var ans *RepairAnswer
		err := child.Run(context.Background(), RepairWork, RepairRequest{Size: int64(len(data)), Password: password},
			bytes.NewReader(data), lim, func(raw json.RawMessage) error {
				ans = new(RepairAnswer)
				return json.Unmarshal(raw, ans)
			})
		var died *child.Died
		switch {
		case errors.As(err, &died):
			return nil, fmt.Errorf("the repairing process %s (the tofu program beside this one repairs PDFs)", died.Reason)
		case err != nil:
			return nil, err
		case ans == nil:
			return nil, errors.New("the repairing process gave no answer (the tofu program beside this one repairs PDFs)")
		case ans.WrongPassword:
			return nil, fmt.Errorf("%w: %s", paper.ErrWrongPassword, ans.Error)
		case ans.Error != "":
			return nil, errors.New(ans.Error)
		}
		return ans.PDF, nil
	}
}
