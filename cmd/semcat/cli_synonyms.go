package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	apiclient "github.com/semcat/semcat/client"
)

const synonymsSynopsis = `get [metalake] | set [metalake] (--set "mau, monthly active users"... | --file FILE|- | --clear)
(a file holds {"synonyms": [[...], ...]}, a JSON list of sets, or one set a line, its entries separated by commas)`

// synonymsCommand is `semcat synonyms get|set`: a metalake's synonym sets
// (SPEC §2.6).
func synonymsCommand(r *remote) *cobra.Command {
	sub := func(use, short string, run func(ctx context.Context, cmd *command, c *apiclient.Client, metalake string) error) *cobra.Command {
		return &cobra.Command{
			Use:               use,
			Short:             short,
			Args:              argsBetween(0, 1),
			ValidArgsFunction: completeIdentifier(r, firstArg("metalake")),
			RunE: func(cc *cobra.Command, pos []string) error {
				cmd := r.command(cc)
				c, err := cmd.client()
				if err != nil {
					return err
				}
				ctx, stop := signalContext()
				defer stop()
				metalake := ""
				if len(pos) == 1 {
					metalake = pos[0]
				} else if metalake, err = cmd.defaultMetalake(ctx, c); err != nil {
					return err
				}
				return run(ctx, cmd, c, metalake)
			},
		}
	}
	var (
		sets  repeatedFlag
		file  string
		clear bool
	)
	set := sub("set [flags] [metalake]", "replace the synonym sets of a metalake", func(ctx context.Context, cmd *command, c *apiclient.Client, metalake string) error {
		return setSynonyms(ctx, cmd, c, metalake, sets, file, clear)
	})
	set.Flags().Var(&sets, "set", `a synonym set, its entries separated by commas: "mau, monthly active users" (repeatable)`)
	set.Flags().StringVar(&file, "file", "", `read the sets from a file ("-": standard input)`)
	set.Flags().BoolVar(&clear, "clear", false, "remove every set")
	return groupCommand("synonyms", "synonyms: get|set", synonymsSynopsis,
		sub("get [flags] [metalake]", "show the synonym sets of a metalake", getSynonyms),
		set,
	)
}

func getSynonyms(ctx context.Context, cmd *command, c *apiclient.Client, metalake string) error {
	sets, err := c.GetSynonyms(ctx, metalake)
	if err != nil || cmd.json {
		return orJSON(cmd, map[string]any{"synonyms": sets}, err)
	}
	if len(sets) == 0 {
		_, err := fmt.Fprintf(cmd.stdout, "no synonyms in metalake %s\n", metalake)
		return err
	}
	for _, s := range sets {
		if _, err := fmt.Fprintln(cmd.stdout, strings.Join(s, ", ")); err != nil {
			return err
		}
	}
	return nil
}

func setSynonyms(ctx context.Context, cmd *command, c *apiclient.Client, metalake string, sets []string, file string, clear bool) error {
	given := 0
	for _, on := range []bool{len(sets) > 0, file != "", clear} {
		if on {
			given++
		}
	}
	if given != 1 {
		return usagef("synonyms set: give one of --set, --file or --clear")
	}
	out := [][]string{}
	for _, s := range sets {
		out = append(out, splitSet(s))
	}
	if file != "" {
		var err error
		if out, err = readSynonyms(file); err != nil {
			return err
		}
	}
	if _, err := c.SetSynonyms(ctx, metalake, out); err != nil {
		return err
	}
	if cmd.json {
		return printJSON(cmd.stdout, map[string]any{"synonyms": out})
	}
	_, err := fmt.Fprintf(cmd.stdout, "set %d synonym sets in metalake %s\n", len(out), metalake)
	return err
}

// splitSet splits "a, b c, d" into its entries.
func splitSet(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// readSynonyms reads synonym sets from a file: the API's body, a JSON list
// of sets, or one set a line (entries separated by commas; blank lines and
// lines starting with # left out).
func readSynonyms(name string) ([][]string, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(string(data))
	switch {
	case strings.HasPrefix(text, "{"):
		var body struct {
			Synonyms [][]string `json:"synonyms"`
		}
		if err := json.Unmarshal(data, &body); err != nil {
			return nil, usagef("--file %s: %v", name, err)
		}
		return body.Synonyms, nil
	case strings.HasPrefix(text, "["):
		var sets [][]string
		if err := json.Unmarshal(data, &sets); err != nil {
			return nil, usagef("--file %s: %v", name, err)
		}
		return sets, nil
	}
	out := [][]string{}
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, splitSet(line))
		}
	}
	return out, nil
}
