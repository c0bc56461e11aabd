package permission

// SecretPlaces lists the places under home (and Tofu's own folders where XDG variables move
// them) that hold secrets, as written and with links resolved: what the policy asks about,
// and what the sandbox hides from every command (backend/sandbox).
func SecretPlaces(home string) []string { return places(home, homeSecrets, true) }
