//go:build !linux

package search

const canPrefetch = false

func willNeed([]byte) {}
