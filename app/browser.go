package app

import "github.com/tofu-research/tofu/backend/browser"

// BrowserService is the window's live view of a session's browser tab (browser.View).
type BrowserService struct{ *browser.View }
