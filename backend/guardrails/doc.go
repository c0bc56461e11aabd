// Package guardrails holds only tests: checks over the whole module that keep its shape (the
// import graph's layers, store writes whose errors are not dropped). `make vet` runs them.
package guardrails
