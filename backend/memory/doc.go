// Package memory keeps what the agent learned as Markdown files a user can read, edit and
// commit: records with front matter in the workspace (.tofu/memory/, project scope) and in
// Tofu's data folder (global scope), found with the retrieval engine and recalled into turns.
package memory
