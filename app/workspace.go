package app

// SetDialogs gives the services the window's native dialogs (workspace folder, export file).
func (a *App) SetDialogs(d Dialogs) {
	a.mu.Lock()
	a.dialogs = d
	a.mu.Unlock()
}

// currentDialogs are the window's dialogs, nil under `tofu serve`.
func (a *App) currentDialogs() Dialogs {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dialogs
}
