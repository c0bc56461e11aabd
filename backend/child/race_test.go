//go:build race

package child

// raceBuild: the race detector maps its shadow memory as the heap grows, and an address space
// bounded tightly leaves it none ("too many address space collisions").
const raceBuild = true
