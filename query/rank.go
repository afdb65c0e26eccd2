package query

// Ranking (SPEC §5.4): the weights a plan gives each way of matching; the
// search package's evaluation scores with them (search/rank.go has idf,
// alsoShare and nameNorm). How many of the query's words a document
// matches comes first (search/coverage.go); within that, a document's
// score is the sum, over the query's terms that it matches, of
//
//	idf(term) × ((1 - alsoShare) × best + alsoShare × sum)
//
// where best is the weight of the best way it matched the term and sum the
// weights of every way it did (a word in the name, the description and a
// column counts more than in the name alone, but never as much as a better
// match). A way's weight is where it matched (wWholeName … wOther) times
// how (kForm, kPrefix, kTypo; exact is 1); a match in the name also scales
// with the name's length in parts (nameNorm), as BM25 scales a term by its
// field's length: "subscription" means dim_subscription more than
// bdg_namespace_order_subscription. idf is BM25's, over the documents the
// term matches in any way: a rare word counts more than a common one.
//
// The weights keep the properties SPEC §5.4 promises for one word: a name
// match (at least wName × minNameNorm = 4.5) outranks the word found only
// in the description (exact and as its own form: 3 × 0.8 + 0.2 × 5.4 =
// 3.48), which outranks it found only in columns (2.72); the whole name
// outranks any other match; exact > form > prefix > typo in one field.
// Ties break by name, then identifier.
//
// wColumn and alsoShare were tuned on the odd-numbered half of the
// relevance benchmark's queries (benchmarks/relevance), the rest set
// before it; the even half is held out.
const (
	// wWholeName: the whole name is the word (or phrase).
	wWholeName = 12.0
	// wIdentifierPrefix: the name starts with a word of several segments
	// ("dim_crm" → dim_crm_account): what a half-remembered name means.
	wIdentifierPrefix = 9.0
	// wName: the word is a part of the name (a word of several segments:
	// all of them are).
	wName = 6.0
	// wDescription: a word of the description.
	wDescription = 3.0
	// wColumnName: a column (or field) is named the word.
	wColumnName = 2.0
	// wColumn: a word of a column's name or comment.
	wColumn = 2.0
	// wOther: a tag, a property value, an expression, anything else.
	wOther = 1.0

	kForm   = 0.8
	kPrefix = 0.7
	kTypo   = 0.5

	// kPart scales the score of a part of an identifier word
	// (identifierParts).
	kPart = 0.3

	// minFormKey is the shortest word form key looked up (shorter ones
	// would expand over half the dictionary); minNamePrefix the shortest
	// word looked up as the start of names; minTypoRunes the shortest
	// word whose typos are looked for (SPEC §5.2).
	minFormKey    = 4
	minNamePrefix = 3 // of an identifier word
	minTypoRunes  = 5
)

// ContextWeight is the weight of a match in a parent's description, which
// a document carries as context (SPEC §5.4): below any of the document's
// own matches (the least is a typo in a value, wOther × kTypo); the
// search package's evaluation says how it decides ties.
const ContextWeight = 0.25

// WholeName reports whether the group is a match of the whole name, which
// evaluation scales by no name length.
func (g Group) WholeName() bool { return g.Where == InName && g.Weight == wWholeName }
