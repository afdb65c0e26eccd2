package analyzers

// Acronyms (SPEC §5.2, revision 3): an all-letters word of 2–6 letters
// finds the phrases of the catalog whose words' initials spell it ("mau"
// finds "monthly active users"), learned from the catalog's own text as it
// is indexed. The name and text analyzers emit, for every run of 2 to
// MaxAcronym consecutive words of letters in a name, description or
// column (within one sentence: a word ending in . , ; : ! or ? ends a
// run), and for every identifier of 2 to MaxAcronym letter segments
// (monthly_active_users), the initials of its words behind AcronymMarker:
// the term AcronymTerm("mau"). A query word looks that term up in the same
// fields (query/plan.go), so the map from acronym to phrase is the index's
// own postings, kept in step with every document indexed and removed.

// AcronymMarker starts every acronym term: a byte no query word or prefix
// starts with, so that exact words, prefixes and word forms never meet an
// acronym term (a typo expansion skips them, search/eval.go).
const AcronymMarker = "\x01"

// MinAcronym and MaxAcronym bound an acronym's letters.
const (
	MinAcronym = 2
	MaxAcronym = 6
)

// AcronymTerm is the term that the phrases spelling acronym (lower-case
// letters) are indexed under.
func AcronymTerm(acronym string) string { return AcronymMarker + acronym }

// IsAcronymWord reports whether a lower-cased word can be an acronym: 2 to
// 6 letters a–z.
func IsAcronymWord(w string) bool {
	return len(w) >= MinAcronym && len(w) <= MaxAcronym && isASCIIWord(w)
}

// Initials returns the first letters of words, when each is letters a–z
// and there are 2 to MaxAcronym of them; "" otherwise.
func Initials(words []string) string {
	if len(words) < MinAcronym || len(words) > MaxAcronym {
		return ""
	}
	b := make([]byte, 0, len(words))
	for _, w := range words {
		if w == "" || !isASCIIWord(w) {
			return ""
		}
		b = append(b, w[0])
	}
	return string(b)
}

// emitAcronyms adds to s the acronym terms of input's words (see above).
func emitAcronyms(s *stream, input []byte) {
	var run []string // the current run's words, lower-cased
	var from int     // where the run starts in input
	flush := func() { run = run[:0] }
	emitRun := func(end int) {
		// Every run of 2..MaxAcronym words ending at the run's last word.
		n := len(run)
		for k := MinAcronym; k <= MaxAcronym && k <= n; k++ {
			if a := Initials(run[n-k:]); a != "" {
				s.emit([]byte(AcronymTerm(a)), from, end)
			}
		}
	}
	forEachWord(input, func(start, end int) {
		raw := string(input[start:end])
		segs := Segments(raw)
		if len(segs) > 1 {
			// An identifier: its segments' initials, whole.
			if a := Initials(segs); a != "" {
				s.emit([]byte(AcronymTerm(a)), start, end)
			}
			flush()
			return
		}
		if len(segs) != 1 || !isASCIIWord(segs[0]) {
			flush()
			return
		}
		if len(run) == 0 {
			from = start
		}
		run = append(run, segs[0])
		emitRun(end)
		if endsSentence(raw) {
			flush()
		}
	})
}

// endsSentence reports whether a word ends a run of prose: it ends in
// . , ; : ! ? or a closing bracket.
func endsSentence(raw string) bool {
	switch raw[len(raw)-1] {
	case '.', ',', ';', ':', '!', '?', ')', ']':
		return true
	}
	return false
}
