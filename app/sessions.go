package app

import "github.com/tofu-research/tofu/backend/desk"

// SessionService is the sidebar's conversations bound to the window: listed, created, renamed,
// deleted, searched, foldered, trashed, duplicated, referenced and switched. The work is
// backend/desk's; its methods are this service's.
type SessionService struct{ *desk.Desk }

// Dialogs are the native file dialogs (the Wails window provides them). Each returns "" when
// the user cancels.
type Dialogs = desk.Dialogs
