#!/bin/sh
# Adds Tofu from this folder to your own application menu (and "Open with Tofu" for PDFs):
# the entry and icons go under ~/.local/share, nothing outside your home is touched.
# ./install-desktop.sh --remove takes them away again. Your data (~/.local/share/tofu) stays.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
entry=$data/applications/tofu.desktop
if [ "${1:-}" = --remove ]; then
	rm -f "$entry"
	for d in "$here"/share/icons/hicolor/*/apps; do
		rm -f "$data/icons/hicolor/$(basename "$(dirname "$d")")/apps/tofu.png"
	done
else
	mkdir -p "$data/applications"
	# The entry runs this folder's tofu (quoted, as the desktop entry format asks).
	sed -e "s|^Exec=tofu |Exec=\"$here/tofu\" |" -e "s|^TryExec=tofu|TryExec=$here/tofu|" \
		"$here/share/applications/tofu.desktop" >"$entry"
	for d in "$here"/share/icons/hicolor/*/apps; do
		size=$(basename "$(dirname "$d")")
		mkdir -p "$data/icons/hicolor/$size/apps"
		cp "$d/tofu.png" "$data/icons/hicolor/$size/apps/tofu.png"
	done
fi
if command -v update-desktop-database >/dev/null 2>&1; then
	update-desktop-database -q "$data/applications" || true
fi
