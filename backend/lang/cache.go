package lang

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Cache keeps translated chunks so a text seen again is not sent to the model again.
type Cache interface {
	Get(key string) (string, bool, error)
	Put(key, value string) error
}

// JSONStore is the part of the event store the cache needs (store.Store in Badger).
type JSONStore interface {
	GetJSON(key string, v any) (bool, error)
	PutJSON(key string, v any) error
}

// StoreCache is the translation cache in Tofu's Badger store, under lang/tr/.
type StoreCache struct{ Store JSONStore }

func (c StoreCache) Get(key string) (string, bool, error) {
	var v string
	ok, err := c.Store.GetJSON("lang/tr/"+key, &v)
	if err != nil {
		return "", false, fmt.Errorf("read translation cache: %w", err)
	}
	return v, ok, nil
}

func (c StoreCache) Put(key, value string) error {
	if err := c.Store.PutJSON("lang/tr/"+key, value); err != nil {
		return fmt.Errorf("write translation cache: %w", err)
	}
	return nil
}

// cacheKey names a chunk's translation by model, languages and the masked text.
func cacheKey(model, from, to, text string) string {
	h := sha256.Sum256([]byte(model + "\x00" + from + "\x00" + to + "\x00" + text))
	return hex.EncodeToString(h[:])
}
