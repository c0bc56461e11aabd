//go:build !race

package child

const raceBuild = false
