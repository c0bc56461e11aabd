//go:build linux && cgo

package window

/*
#cgo pkg-config: glib-2.0
#include <glib.h>
#include <string.h>
#include <stdlib.h>

// GTK 3's file chooser completes a typed path against a model it has not made yet and says so
// at every key: "gtk_tree_model_get_iter_first: assertion 'GTK_IS_TREE_MODEL (tree_model)'
// failed", some twenty lines while a user types a folder. Harmless, GTK's own, and not fixed in
// GTK 3; every other message of GTK's goes on as it would.
static void tofuGtkLog(const gchar *domain, GLogLevelFlags level, const gchar *msg, gpointer data) {
	if (msg != NULL && strstr(msg, "gtk_tree_model_get_iter_first") != NULL) return;
	g_log_default_handler(domain, level, msg, data);
}

static void quietFileChooser(void) {
	g_log_set_handler("Gtk", G_LOG_LEVEL_CRITICAL, tofuGtkLog, NULL);
}

static void gtkCritical(const char *msg) { g_log("Gtk", G_LOG_LEVEL_CRITICAL, "%s", msg); }
*/
import "C"

import "unsafe"

// quietFileChooser drops the one critical GTK's file chooser repeats while a path is typed.
func quietFileChooser() { C.quietFileChooser() }

// gtkCritical logs msg as GTK would (for the test).
func gtkCritical(msg string) {
	cs := C.CString(msg)
	defer C.free(unsafe.Pointer(cs))
	C.gtkCritical(cs)
}
