package api

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
