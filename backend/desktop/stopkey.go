package desktop

import (
	"fmt"

	"github.com/jezek/xgb/xproto"
)

// StopKey is the global key that stops an agent driving the desktop, wherever the focus is.
const StopKey = "ctrl+alt+End"

// GrabStopKey makes StopKey reach Tofu (and no other app) from every window: a press calls
// the OnStop functions. Fails when another program holds that key.
func (d *Desktop) GrabStopKey() error {
	syms, _ := ParseCombo(StopKey)
	end, ok := d.keys.where[xproto.Keysym(syms[len(syms)-1])]
	if !ok {
		return fmt.Errorf("the keyboard has no End key for the stop key %s", StopKey)
	}
	base := uint16(xproto.ModMaskControl | xproto.ModMask1)
	// The grab must hold with Caps Lock and Num Lock (Mod2) on too.
	for _, extra := range []uint16{0, xproto.ModMaskLock, xproto.ModMask2, xproto.ModMaskLock | xproto.ModMask2} {
		err := xproto.GrabKeyChecked(d.conn, true, d.root, base|extra, end.code, xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
		if err != nil {
			return fmt.Errorf("grab the stop key %s (another program may hold it): %w", StopKey, err)
		}
	}
	return nil
}
