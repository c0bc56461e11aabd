// Package search is Tofu's one retrieval engine: text analysis for every script (word
// segmentation, stemming, CJK bigrams, identifier splitting) and a BM25F index over weighted
// fields, used by the paper reader, memory and history search.
package search
