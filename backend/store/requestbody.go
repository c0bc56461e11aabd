package store

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// The parts a request was built from that are not in the log (its system prompt, its tool
// specs, the context manager's config) are kept as blobs named by their sha256: the same text,
// used by every request of a session (and of every session with the same settings), is
// stored once. With them and the log a request is built again (agent.Rebuild), so its
// bytes need not be kept.

// RequestPartKey is the blob key of the request part whose sha256 is sum (hex).
func RequestPartKey(sum string) string { return "part/" + sum }

// PutRequestPart keeps data under RequestPartKey(sha256(data)), unless it is there already,
// and returns the key.
func (s *Store) PutRequestPart(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	key := RequestPartKey(hex.EncodeToString(sum[:]))
	if _, err := s.BlobSize(key); err == nil {
		return key, nil
	} else if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	if _, err := s.PutBlob(key, bytes.NewReader(data)); err != nil {
		return "", err
	}
	return key, nil
}

// RequestPart reads a part kept by PutRequestPart, checking that it still hashes to its name.
func (s *Store) RequestPart(key string) ([]byte, error) {
	b, err := s.BlobBytes(key)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	if RequestPartKey(hex.EncodeToString(sum[:])) != key {
		return nil, ErrPartChanged
	}
	return b, nil
}

// ErrPartChanged is in the error of a request part that no longer hashes to its name.
var ErrPartChanged = errors.New("its bytes no longer hash to its name (it was changed)")
