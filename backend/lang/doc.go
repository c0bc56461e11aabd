// Package lang detects the language of a text and translates it for the agent to reason in
// English, keeping code, URLs, paths, identifiers, numbers with units and math byte-exact.
package lang
