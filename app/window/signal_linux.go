//go:build linux && cgo

package window

/*
#include <signal.h>
static void defaultUSR1(void) { signal(SIGUSR1, SIG_DFL); }
*/
import "C"

// quietJSC leaves SIGUSR1 to WebKit. JavaScriptCore takes SIGUSR1 to suspend threads for its
// garbage collector and prints "Overriding existing handler for signal 10" at every launch
// when the signal already has a handler, which Go's runtime installs for every signal. Tofu
// never uses SIGUSR1: putting back the default before WebKit starts changes nothing but that
// line (JavaScriptCore installs its own handler right after).
func quietJSC() { C.defaultUSR1() }
