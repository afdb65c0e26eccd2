package main

import (
	"github.com/spf13/cobra"
	"io"
	"log/slog"

	"github.com/semcat/semcat/mcpserver"
)

// serveMCP runs `semcat mcp`: the MCP tools over stdio, answering from a
// running semcat server over HTTP, so an agent's session never opens the
// server's database or index itself.
func mcpCommand(r *remote) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "serve the Model Context Protocol over stdio, answering from a running server",
		Args:  argsBetween(0, 0),
		RunE: func(cc *cobra.Command, _ []string) error {
			return serveMCP(r, cc.ErrOrStderr())
		},
	}
}

func serveMCP(r *remote, stderr io.Writer) error {
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
