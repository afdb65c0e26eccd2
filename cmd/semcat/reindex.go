package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/spf13/cobra"
	"time"
)

// runReindex runs `semcat reindex`: it asks a running server to rebuild its
// search index into a new directory and swap it in atomically, while search
// keeps serving, and waits until the new index serves.
func reindexCommand(r *remote) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "rebuild the server's search index and swap it in",
		Args:  argsBetween(0, 0),
		RunE: func(cc *cobra.Command, _ []string) error {
			return runReindex(r.command(cc))
		},
	}
}

func runReindex(cmd *command) error {
	stdout, stderr := cmd.stdout, cmd.stderr
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	// The bar follows the server's count of documents written.
	done := startProgress(stderr, "rebuilding the search index", func() (int64, int64, bool) {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		p, err := c.ReindexProgress(pctx)
		if err != nil || !p.Running {
			return 0, 0, false
		}
		return p.Indexed, p.Total, true
	})
	took, err := c.Reindex(ctx)
	done()
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted; the server finishes the rebuild on its own")
	} else if err != nil {
		return err
	}
	if cmd.json {
		return printJSON(stdout, map[string]int64{"tookMs": took.Milliseconds()})
	}
	fmt.Fprintf(stdout, "rebuilt the search index of %s in %s\n", c.URL(), took)
	return nil
}
