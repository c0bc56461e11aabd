package llm

import (
	"errors"
	"fmt"
	"testing"
)

func TestAsError(t *testing.T) {
	anon := &Error{Kind: ErrRateLimited, Message: "slow down"}
	named := &Error{Kind: ErrAuth, Provider: "openai", Message: "bad key"}
	tests := []struct {
		name string
		err  error
		want Error
	}{
		{"a plain error is a server error", errors.New("boom"), Error{Kind: ErrServer, Provider: "p", Message: "boom"}},
		{"an error without provider gains it", fmt.Errorf("wrapped: %w", anon), Error{Kind: ErrRateLimited, Provider: "p", Message: "slow down"}},
		{"an error with a provider keeps it", named, *named},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AsError(tt.err, "p"); *got != tt.want {
				t.Fatalf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
	if anon.Provider != "" {
		t.Fatal("AsError changed the error it was given")
	}
}
