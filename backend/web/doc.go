// Package web fetches pages and searches the web for the agent when the user has turned web
// access on: main content to Markdown, PDFs through the paper extractor, size and time caps,
// no cookies, and no requests into the user's own network unless a host is allowed.
package web
