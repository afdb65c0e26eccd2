package indexer

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zapv17 "github.com/blevesearch/zapx/v17"

	"github.com/semcat/semcat/search"
)

// Segments warmed before searches see them.
//
// A merge of large segments writes one of up to MaxSegmentDocs documents.
// The first search of a snapshot holding it used to build its columns while
// it waited: at 1M entities, searches of 0.6 s and 1.8 s right after the
// load, against a p50 of 2–5 ms. Lucene answers this with a merged-segment
// warmer; Scorch has no such hook, but it opens every segment file it
// writes (a merge, or a batch persisted from memory) through its segment
// plugin before it puts the segment into a snapshot. So the indexer wraps
// the plugin: when an index is the one being searched, the columns of each
// segment it opens are built there, in Bleve's merger or persister, while
// searches keep using the snapshot before.

// warmKey names the segment configuration entry holding an index's warmer.
const warmKey = "semcat.columns"

// warmingPlugin is Bleve's default segment plugin (zap, version 17: the
// same files), whose OpenUsing, for an index of the indexer's, first has
// the file cached in small pages (cacheInSmallPages) and then hands the
// segment to the index's warmer.
type warmingPlugin struct{ scorch.SegmentPlugin }

func (p warmingPlugin) OpenUsing(path string, config map[string]any) (segment.Segment, error) {
	if _, ok := config[warmKey].(*segWarmer); ok {
		// Only a cost if it fails: the file is still read, in large pages.
		_ = cacheInSmallPages(path)
	}
	var seg segment.Segment
	err := guard("open segment", func() (err error) {
		seg, err = p.SegmentPlugin.OpenUsing(path, config)
		return err
	})
	if err != nil {
		return nil, err
	}
	if w, ok := config[warmKey].(*segWarmer); ok {
		w.opened(path, seg)
	}
	return seg, nil
}

func init() {
	scorch.RegisterSegmentPlugin(warmingPlugin{&zapv17.ZapPlugin{}}, true)
}

// segWarmer builds the columns of the segments one index opens, while that
// index is being searched.
type segWarmer struct {
	cache *search.ColumnCache
	owner atomic.Pointer[scorch.Scorch] // set once the index is open
}

// attach makes idx the warmer's index.
func (w *segWarmer) attach(idx bleve.Index) error {
	s, err := scorchOf(idx)
	if err != nil {
		return err
	}
	w.owner.Store(s)
	return nil
}

func (w *segWarmer) opened(path string, seg segment.Segment) {
	owner := w.owner.Load()
	if owner == nil || !w.cache.Searching(owner) {
		return
	}
	id, err := segmentIDOfPath(path)
	if err != nil {
		return // not a file Scorch names; the first search builds it
	}
	w.cache.Warm(owner, id, seg)
}

// segmentIDOfPath returns the id of the segment in a Scorch segment file:
// the file is named by the id, in 12 hexadecimal digits.
func segmentIDOfPath(path string) (uint64, error) {
	name, ok := strings.CutSuffix(filepath.Base(path), ".zap")
	if !ok {
		return 0, fmt.Errorf("%s is not a segment file", path)
	}
	return strconv.ParseUint(name, 16, 64)
}

// openIndex opens the index in dir to serve searches, with a warmer.
func (x *Indexer) openIndex(dir string) (bleve.Index, error) {
	return x.openIndexUsing(dir, x.scorchConfig)
}

// openIndexUsing opens the index in dir with the configuration config
// makes for its warmer.
func (x *Indexer) openIndexUsing(dir string, config func(*segWarmer) map[string]any) (bleve.Index, error) {
	w := &segWarmer{cache: &x.columns}
	idx, err := openBleve(dir, config(w))
	if err != nil {
		return nil, err
	}
	if err := w.attach(idx); err != nil {
		idx.Close()
		return nil, err
	}
	return idx, nil
}

// createIndex creates an empty index in dir for a build to fill and opens
// it with a warmer and the build's merge policy (buildConfig). (Bleve
// saves the configuration an index is created with, and a warmer is no
// configuration to save.)
func (x *Indexer) createIndex(dir string) (bleve.Index, error) {
	idx, err := bleve.NewUsing(dir, newMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, x.scorchConfig(nil))
	if err != nil {
		return nil, err
	}
	if err := idx.Close(); err != nil {
		return nil, err
	}
	return x.openIndexUsing(dir, x.buildConfig)
}

// warmIndex builds the columns of every segment of the current snapshot of
// idx.
func (x *Indexer) warmIndex(idx bleve.Index) error {
	adv, snap, err := search.OpenSnapshot(idx)
	if err != nil {
		return err
	}
	defer snap.Close()
	return x.columns.WarmSnapshot(adv, snap)
}

// warmColumns builds the columns of new segments (written by the tail, or
// by a merge the segment warmer missed) every interval while searches run.
// It stops when ctx ends.
func (x *Indexer) warmColumns(ctx context.Context, interval time.Duration) {
	every(ctx, interval, func() bool {
		if !x.columns.Recent() {
			return true // nobody searches: spend nothing
		}
		if err := x.h.read(x.warmIndex); err != nil && ctx.Err() == nil {
			x.logger.Warn("indexer: building search columns", "err", err)
		}
		return true
	})
}

// every calls fn every interval until ctx ends or fn returns false.
func every(ctx context.Context, interval time.Duration, fn func() bool) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !fn() {
			return
		}
	}
}

// prepareSwap builds, while searches run, the columns of a rebuilt index
// about to replace the searched one, so that its first searches do not
// build them all (several seconds at 1M entities). Its merges are warmed
// from now on; commitSwap hands searches' warming over to it.
func (x *Indexer) prepareSwap(idx bleve.Index) {
	if !x.columns.Recent() {
		return
	}
	s, err := scorchOf(idx)
	if err == nil {
		x.columns.SetIncoming(s)
		// Twice: the second pass builds any segment a merge wrote while
		// the first ran but opened before the index was incoming.
		for range 2 {
			if err = x.warmIndex(idx); err != nil {
				break
			}
		}
	}
	if err != nil {
		x.logger.Warn("indexer: building search columns of the rebuilt index", "err", err)
	}
}

// commitSwap records that idx replaced old: if searches were warming old,
// they now warm idx.
func (x *Indexer) commitSwap(old, idx bleve.Index) {
	defer x.columns.SetIncoming(nil)
	prev, err1 := scorchOf(old)
	next, err2 := scorchOf(idx)
	if err1 == nil && err2 == nil {
		x.columns.Swapped(prev, next)
	}
}

// scorchOf returns the Scorch index under idx.
func scorchOf(idx bleve.Index) (*scorch.Scorch, error) {
	if idx == nil {
		return nil, errors.New("no index")
	}
	adv, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil, fmt.Errorf("index %T is not a scorch index", adv)
	}
	return s, nil
}
