package main

import (
	"flag"
	"io"
	"log/slog"

	"github.com/semcat/semcat/mcpserver"
)

// serveMCP runs `semcat mcp`: the MCP tools over stdio, answering from a
// running semcat server over HTTP, so an agent's session never opens the
// server's database or index itself.
func serveMCP(args []string, r *remote, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	r.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("mcp: unexpected argument %q", fs.Arg(0))
	}
	c, err := r.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	name := r.user
	if name == "" {
		name = mcpserver.AnonymousUser
	}
	return mcpserver.ServeStdio(ctx, mcpserver.Services{Metrics: c, Search: c, Catalogs: c, Schemas: c, Tables: c, Models: c, Tags: c},
		mcpserver.Config{DefaultMetalake: r.metalake, Version: version, Logger: logger}, name)
}
