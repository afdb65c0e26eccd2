//go:build !linux

package indexer

import "errors"

var errNoCacheSweep = errors.New("keeping the index cached needs Linux")

func readCached(string, []byte, bool) (int64, int64, error) { return 0, 0, errNoCacheSweep }

func roomFor(int64) bool { return false }

func adviseRandom([]string, bool) error { return nil }

func cacheInSmallPages(string) error { return nil }

var errNoUnmap = errors.New("bounding the index's resident memory needs Linux")

func fileResident() (int64, error) { return 0, errNoUnmap }

func unmapPages([]byte) error { return errNoUnmap }
