package app

import "github.com/tofu-research/tofu/backend/memory"

// MemoryService is the memory panel (memory.Panel): records listed, searched, edited,
// switched, deleted, and the turns that used one.
type MemoryService struct{ *memory.Panel }
