// Package guardrails holds checks over the whole module that keep its shape, run by `make
// vet`: the import graph's layers (a test here) and store writes whose error is not dropped
// without a reason (the storewrites vet tool).
package guardrails
