package search

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// segPostings reads one segment's postings lists as roaring bitmaps (zap
// keeps them so): the one reader of postings in search, under the plan's
// evaluation (segReader) and the filters and visibility (segBitmaps). It
// opens each field's dictionary once and counts what it reads.
type segPostings struct {
	seg   segment.Segment
	dicts map[string]segment.TermDictionary
	reads Reads // counts the postings read (nil: not counted)
}

func newSegPostings(seg segment.Segment, reads Reads) segPostings {
	return segPostings{seg: seg, dicts: map[string]segment.TermDictionary{}, reads: reads}
}

// orInto is what zap's postings lists offer: their documents, deleted ones
// included, added to a bitmap.
type orInto interface{ OrInto(*roaring.Bitmap) }

// dict returns field's term dictionary in the segment.
func (p *segPostings) dict(field string) (segment.TermDictionary, error) {
	d, ok := p.dicts[field]
	if !ok {
		var err error
		if d, err = p.seg.Dictionary(field); err != nil {
			return nil, err
		}
		p.dicts[field] = d
	}
	return d, nil
}

// orList adds the documents of pl, a postings list of field, to out
// (deleted ones included), and counts it read.
func (p *segPostings) orList(out *roaring.Bitmap, field string, pl segment.PostingsList) error {
	p.reads.Postings(field, pl)
	o, ok := pl.(orInto)
	if !ok {
		return fmt.Errorf("%w: postings %T", ErrNoBitmaps, pl)
	}
	o.OrInto(out)
	return nil
}

// postings adds the documents holding term in field's dictionary d to
// out, and says whether there were any.
func (p *segPostings) postings(out *roaring.Bitmap, d segment.TermDictionary, field, term string) (bool, error) {
	pl, err := d.PostingsList([]byte(term), nil, nil)
	if err != nil || pl == nil || pl.Count() == 0 {
		return false, err
	}
	return true, p.orList(out, field, pl)
}

// orTerm adds the documents of the segment that hold term in field to out.
func (p *segPostings) orTerm(out *roaring.Bitmap, field, term string) error {
	d, err := p.dict(field)
	if err != nil {
		return err
	}
	_, err = p.postings(out, d, field, term)
	return err
}

// term returns the documents of the segment that hold term in field
// (deleted ones included).
func (p *segPostings) term(field, term string) (*roaring.Bitmap, error) {
	out := roaring.New()
	return out, p.orTerm(out, field, term)
}
