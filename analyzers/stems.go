package analyzers

import "strings"

// Derived forms (SPEC §5.2, revision 3): words of one English stem meet, as
// "cancelled" and "cancellation", "delivered" and "delivery", "validated"
// and "validation". FormKey meets a word's inflections; StemKey goes one
// step further and takes off one derivational ending as well.
//
// Snowball's English (Porter2) stemmer was considered: it meets
// "cancelled" and "cancellation" but not "delivered" ("deliv") and
// "delivery" ("deliveri"), and it makes "custom" of "customer", which on a
// catalog means every custom field. So the endings here are the few that
// make nouns and adjectives of verbs and back (-ation, -ition, -ion, -ment,
// -ness, -ity, -al, -y, and a verb's -ate), each taken off only when at
// least minStem letters are left; -er and -or stay (customer, vendor).

// derivations are the endings StemKey takes off, longest first; at most
// one is.
var derivations = []string{"ation", "ition", "ment", "ness", "ity", "ion", "al", "y"}

// minStem is the fewest letters a stem keeps after an ending goes.
const minStem = 4

// StemKey returns the key that a lower-cased English word shares with its
// inflections and derived forms: "cancelled", "cancellation" and
// "cancellations" → "cancel"; "delivered", "delivery" and "deliveries" →
// "deliver"; "validate", "validated" and "validation" → "valid". A word
// that is not all letters a–z is its own key. The key less a final y
// (FormPrefix) starts every word that has it, at most MaxStemTail letters
// before the word's end.
func StemKey(w string) string {
	k := FormKey(w)
	if !isASCIIWord(k) {
		return k
	}
	for _, suf := range derivations {
		if strings.HasSuffix(k, suf) && len(k)-len(suf) >= minStem {
			k = unDouble(strings.TrimSuffix(k[:len(k)-len(suf)], "e"))
			break
		}
	}
	if strings.HasSuffix(k, "at") && len(k)-2 >= minStem {
		k = k[:len(k)-2] // validat(e) → valid, as validation
	}
	return k
}

// unDouble drops the last of a doubled final consonant, as FormKey does.
func unDouble(w string) string {
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !isVowel(w[n-1]) {
		return w[:n-1]
	}
	return w
}

// MaxStemTail is the most letters a word has after the FormPrefix of its
// StemKey: a doubled consonant, a derivational ending and a plural, as in
// cancel-lations (TestStemTail).
const MaxStemTail = 9
