package permission

import "fmt"

// Mode is how a headless run (`tofu run --approve=…`) answers calls that would ask.
type Mode string

const (
	// ModeAsk leaves asks to a human (the window's approval card, or a prompt).
	ModeAsk Mode = "ask"
	// ModeSafe runs what the policy allows and denies what would ask.
	ModeSafe Mode = "safe"
	// ModeAll approves every ask but those about secrets; deny rules and the built-in dangerous
	// commands still deny.
	ModeAll Mode = "all"
	// ModeNever changes nothing: only calls that just read, and that the policy allows, run;
	// every write, command and network access is denied even when a rule allows it.
	ModeNever Mode = "never"
	// ModeSuite is `tofu eval tasks`' safe profile, for a throwaway workspace: ModeSafe, plus
	// writes inside the workspace and the test and build commands of SuiteCommands allowed.
	// Deny rules, the dangerous commands, protected paths (.git, .tofu) and secrets still hold.
	ModeSuite Mode = "suite"
)

// ParseMode reads an --approve value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeAsk, ModeSafe, ModeAll, ModeNever, ModeSuite:
		return m, nil
	case "":
		return ModeAsk, nil
	}
	return "", fmt.Errorf("--approve must be ask, safe, all, never or suite, not %q", s)
}

// Apply turns the policy's decision into the mode's. It is a pure function of both.
func (m Mode) Apply(d Decision) Decision {
	switch m {
	case ModeSafe, ModeSuite:
		if d.Action == Ask {
			d.Action, d.Remember = Deny, nil
			d.Reason = "needs approval, and --approve=" + string(m) + " denies it: " + d.Reason
		}
	case ModeAll:
		if d.Action == Ask && d.Secret {
			// Secrets are never read or written, nor apps launched, without a person answering.
			d.Action, d.Remember = Deny, nil
			d.Reason = "only a person may allow this (run with --approve ask): " + d.Reason
		} else if d.Action == Ask {
			d.Action, d.Remember = Allow, nil
			d.Reason = "approved by --approve=all: " + d.Reason
		}
	case ModeNever:
		switch {
		case d.Action == Ask:
			d.Action, d.Remember = Deny, nil
			d.Reason = "needs approval, and --approve=never denies it: " + d.Reason
		case d.Action == Allow && !d.ReadOnly:
			d.Action = Deny
			d.Reason = "--approve=never allows only reading: " + d.Reason
		}
	}
	return d
}
