package store

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// Request bodies sent to providers are kept as blobs (gzip: a request is mostly the previous
// one again, and JSON compresses about tenfold), named by their sha256, so a retried call with
// the same bytes is stored once. The model_call event names the blob; `tofu trace` reads it.

// RequestBlobKey is the blob key of the request body whose sha256 is sum (hex).
func RequestBlobKey(sum string) string { return "req/" + sum }

// PutRequestBody keeps body under RequestBlobKey(sum) and returns the key.
func (s *Store) PutRequestBody(sum string, body []byte) (string, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(body); err != nil {
		return "", fmt.Errorf("compress request %s: %w", sum, err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("compress request %s: %w", sum, err)
	}
	key := RequestBlobKey(sum)
	if _, err := s.PutBlob(key, &buf); err != nil {
		return "", err
	}
	return key, nil
}

// RequestBody reads a request body kept by PutRequestBody.
func (s *Store) RequestBody(key string) ([]byte, error) {
	b, err := s.BlobBytes(key)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("request blob %s: %w", key, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("request blob %s: %w", key, err)
	}
	return out, nil
}
