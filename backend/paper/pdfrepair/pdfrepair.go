// Package pdfrepair is backend/paper's Repairer, pdfcpu: importing it installs it. It also
// serves the repair as a child's work (backend/child) for programs that leave pdfcpu out:
// tofu-pdf sends the files it cannot open to the tofu program beside it, which links this.
package pdfrepair

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/tofu-research/tofu/backend/child"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/worker/serve"
)

func init() {
	api.DisableConfigDir() // before any configuration is made
	paper.SetRepairer(Rewrite)
	child.Serve(serve.RepairWork, serveRepair)
}

// config returns a configuration that never touches ~/.config/pdfcpu and writes plain
// cross-reference tables, which ledongthuc/pdf reads fastest.
func config(password string) *model.Configuration {
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	conf.WriteObjectStream = false
	conf.WriteXRefStream = false
	conf.UserPW = password
	conf.OwnerPW = password
	return conf
}

// Rewrite is the Repairer: pdfcpu parses, decrypts and writes the file again; its reader
// rebuilds broken cross-reference tables from the objects it finds.
func Rewrite(data []byte, password string) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("pdfcpu: %v", p)
		}
	}()
	out, err = rewrite(data, password)
	if errors.Is(err, pdfcpu.ErrWrongPassword) {
		err = fmt.Errorf("%w: %w", paper.ErrWrongPassword, err)
	}
	return out, err
}

func rewrite(data []byte, password string) ([]byte, error) {
	var buf bytes.Buffer
	ctx, err := api.ReadContext(bytes.NewReader(data), config(password))
	if err != nil {
		return nil, err
	}
	if ctx.Encrypt != nil {
		if err := api.Decrypt(bytes.NewReader(data), &buf, config(password)); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	if err := api.OptimizeContext(ctx); err != nil {
		return nil, err
	}
	if err := api.WriteContext(ctx, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// serveRepair is the child's side: it repairs the PDF that follows the request.
func serveRepair(raw json.RawMessage, in io.Reader, send func(any)) error {
	var req serve.RepairRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return fmt.Errorf("read the request: %w", err)
	}
	data := make([]byte, req.Size)
	if _, err := io.ReadFull(in, data); err != nil {
		return fmt.Errorf("read the PDF: %w", err)
	}
	out, err := Rewrite(data, req.Password)
	if err != nil {
		send(serve.RepairAnswer{Error: err.Error(), WrongPassword: errors.Is(err, paper.ErrWrongPassword)})
		return nil
	}
	send(serve.RepairAnswer{PDF: out})
	return nil
}
