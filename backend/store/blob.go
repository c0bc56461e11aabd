package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	badger "github.com/dgraph-io/badger/v4"
)

// BlobChunk is the size of one stored piece of a blob. Values this large go to Badger's value
// log (its threshold is 1 MB) and a blob never becomes one value near the 64 MB log file size.
const BlobChunk = 1 << 20

// ErrBlobNotFound means no blob is stored under the key.
var ErrBlobNotFound = fmt.Errorf("blob %w", ErrNotFound)

// Keys: "b/<key>" holds the size (8 bytes, big-endian) and is written last, so a blob is
// visible only once all of its chunks are; "c/<key>/<index as 4 bytes>" holds the chunks.
func blobMetaKey(key string) []byte { return []byte("b/" + key) }

func blobChunkPrefix(key string) []byte { return []byte("c/" + key + "/") }

func blobChunkKey(key string, i int) []byte {
	return binary.BigEndian.AppendUint32(blobChunkPrefix(key), uint32(i))
}

// PutBlob stores everything r yields under key, replacing any blob already there. It is read
// and written 1 MB at a time, so a large PDF never sits in memory or in the log as one piece.
func (s *Store) PutBlob(key string, r io.Reader) (int64, error) {
	if err := s.DeleteBlob(key); err != nil && !errors.Is(err, ErrNotFound) {
		return 0, err
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	buf := make([]byte, BlobChunk)
	var size int64
	for i := 0; ; i++ {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if err := wb.Set(blobChunkKey(key, i), append([]byte(nil), buf[:n]...)); err != nil {
				return 0, fmt.Errorf("write blob %s: %w", key, err)
			}
			size += int64(n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			s.deleteChunks(key)
			return 0, fmt.Errorf("read blob %s: %w", key, err)
		}
	}
	if err := wb.Flush(); err != nil {
		s.deleteChunks(key)
		return 0, fmt.Errorf("write blob %s: %w", key, err)
	}
	err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(blobMetaKey(key), binary.BigEndian.AppendUint64(nil, uint64(size)))
	})
	if err != nil {
		s.deleteChunks(key)
		return 0, fmt.Errorf("write blob %s: %w", key, err)
	}
	return size, nil
}

// BlobSize returns the size of the blob under key.
func (s *Store) BlobSize(key string) (int64, error) {
	var size int64
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(blobMetaKey(key))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return ErrBlobNotFound
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			if len(v) != 8 {
				return fmt.Errorf("bad blob header (%d bytes)", len(v))
			}
			size = int64(binary.BigEndian.Uint64(v))
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("blob %s: %w", key, err)
	}
	return size, nil
}

// Blob opens the blob under key for reading. The reader loads one chunk at a time.
func (s *Store) Blob(key string) (*BlobReader, error) {
	size, err := s.BlobSize(key)
	if err != nil {
		return nil, err
	}
	return &BlobReader{s: s, key: key, size: size, idx: -1}, nil
}

// BlobBytes reads a whole blob into memory: for values known to be small enough.
func (s *Store) BlobBytes(key string) ([]byte, error) {
	r, err := s.Blob(key)
	if err != nil {
		return nil, err
	}
	b := make([]byte, r.Size())
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", key, err)
	}
	return b, nil
}

// DeleteBlob removes the blob under key; ErrNotFound if there is none.
func (s *Store) DeleteBlob(key string) error {
	var found bool
	err := s.db.Update(func(txn *badger.Txn) error {
		if _, err := txn.Get(blobMetaKey(key)); err == nil {
			found = true
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		return txn.Delete(blobMetaKey(key))
	})
	if err != nil {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	// Chunks left by an interrupted write are removed too.
	if err := s.deleteChunks(key); err != nil {
		return err
	}
	if !found {
		return ErrBlobNotFound
	}
	return nil
}

func (s *Store) deleteChunks(key string) error {
	var keys [][]byte
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: blobChunkPrefix(key)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			keys = append(keys, it.Item().KeyCopy(nil))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete(k); err != nil {
			return fmt.Errorf("delete blob %s: %w", key, err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

// BlobReader reads a stored blob; it is an io.ReadSeeker and io.ReaderAt (http.ServeContent
// can answer range requests from it). Not safe for concurrent Read/Seek; ReadAt is.
type BlobReader struct {
	s    *Store
	key  string
	size int64
	off  int64

	idx   int // chunk held in buf, -1 for none
	chunk []byte
}

// Size is the blob's length in bytes.
func (b *BlobReader) Size() int64 { return b.size }

func (b *BlobReader) load(i int) ([]byte, error) {
	var out []byte
	err := b.s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(blobChunkKey(b.key, i))
		if err != nil {
			return err
		}
		out, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("blob %s chunk %d: %w", b.key, i, err)
	}
	return out, nil
}

// Read implements io.Reader.
func (b *BlobReader) Read(p []byte) (int, error) {
	if b.off >= b.size {
		return 0, io.EOF
	}
	i := int(b.off / BlobChunk)
	if i != b.idx {
		c, err := b.load(i)
		if err != nil {
			return 0, err
		}
		b.idx, b.chunk = i, c
	}
	within := int(b.off % BlobChunk)
	if within >= len(b.chunk) {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, b.chunk[within:])
	b.off += int64(n)
	return n, nil
}

// ReadAt implements io.ReaderAt without touching the read offset.
func (b *BlobReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	n := 0
	for n < len(p) {
		if off >= b.size {
			return n, io.EOF
		}
		c, err := b.load(int(off / BlobChunk))
		if err != nil {
			return n, err
		}
		within := int(off % BlobChunk)
		if within >= len(c) {
			return n, io.ErrUnexpectedEOF
		}
		k := copy(p[n:], c[within:])
		n += k
		off += int64(k)
	}
	return n, nil
}

// Seek implements io.Seeker.
func (b *BlobReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.off
	case io.SeekEnd:
		offset += b.size
	default:
		return 0, errors.New("bad whence")
	}
	if offset < 0 {
		return 0, errors.New("negative position")
	}
	b.off = offset
	return offset, nil
}
