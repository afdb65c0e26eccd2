package main

import (
	"fmt"
	"github.com/spf13/cobra"
)

// runStatus runs `semcat status`: whether the server is up and ready, and
// its version. It fails when the server is not ready.
func statusCommand(r *remote) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "whether the server is up and ready, and its version",
		Args:  argsBetween(0, 0),
		RunE: func(cc *cobra.Command, _ []string) error {
			return runStatus(r.command(cc))
		},
	}
}

func runStatus(cmd *command) error {
	stdout := cmd.stdout
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	if err := c.Health(ctx); err != nil {
		return err
	}
	v, err := c.Version(ctx)
	if err != nil {
		return err
	}
	readyErr := c.Ready(ctx)
	if cmd.json {
		out := struct {
			Server  string `json:"server"`
			Version string `json:"version"`
			Ready   bool   `json:"ready"`
		}{c.URL(), v, readyErr == nil}
		if err := printJSON(stdout, out); err != nil {
			return err
		}
	} else {
		ready := "yes"
		if readyErr != nil {
			ready = "no: " + errorMessage(readyErr)
		}
		if err := printFields(stdout, "server", c.URL(), "version", v, "ready", ready); err != nil {
			return err
		}
	}
	if readyErr != nil {
		return fmt.Errorf("the server at %s is not ready: %s", c.URL(), errorMessage(readyErr))
	}
	return nil
}
