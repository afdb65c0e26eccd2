package search

import "golang.org/x/sys/unix"

const canPrefetch = true

// willNeed starts reading the pages of b, a page-aligned part of a file
// mapping, into the page cache, and returns without waiting for them. An
// error (a mapping gone, memory short) only means no prefetch: the reads
// that follow fault the pages in as they would have.
func willNeed(b []byte) { _ = unix.Madvise(b, unix.MADV_WILLNEED) }
