package api

import "time"

// HoldListingSlots takes every slot of the unbounded listings until
// release is called.
func HoldListingSlots() (release func()) {
	for range cap(listingSlots) {
		listingSlots <- struct{}{}
	}
	return func() {
		for range cap(listingSlots) {
			<-listingSlots
		}
	}
}

// FreeListingSlots is how many slots of the unbounded listings are free.
func FreeListingSlots() int { return cap(listingSlots) - len(listingSlots) }

// WatchListingRests has watch told each rest a listing slot takes, before
// it starts, until the test ends.
func WatchListingRests(t interface{ Cleanup(func()) }, watch func(time.Duration)) {
	was := afterRest
	afterRest = func(rest time.Duration, f func()) {
		watch(rest)
		was(rest, f)
	}
	t.Cleanup(func() { afterRest = was })
}
