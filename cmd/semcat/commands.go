package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
)

// The command tree (spf13/cobra): parsing, per-command help and usage,
// and shell completion, static (commands, flags, the values of --type and
// --sort) and dynamic (identifiers, asked of the server as they are typed).

// usageTemplate is every command's usage, as `semcat <command> --help`
// and a usage error print it.
const usageTemplate = `usage: {{.UseLine}}{{if .HasAvailableSubCommands}}

commands:{{range .Commands}}{{if .IsAvailableCommand}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasExample}}

examples:
{{.Example}}{{end}}{{if .HasAvailableLocalFlags}}

flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

flags of every command that talks to a server:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}
`

// remoteFlags are the root's flags, which only the commands that talk to a
// server take.
var remoteFlags = []string{"server", "user", "token", "metalake", "json"}

// newRootCommand returns the command tree of one run: its flags write into
// a fresh remote whose defaults come from getenv.
func newRootCommand(getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	r := newRemote(getenv)
	root := &cobra.Command{
		Use:           "semcat",
		Short:         "the semcat metadata catalog and search service",
		Version:       version,
		SilenceErrors: true, // report writes them, with the exit status
		SilenceUsage:  true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q%s (semcat help lists them)", args[0], didYouMean(args[0], commandNames(cmd)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			usage(cmd.ErrOrStderr())
			return usagef("no command given")
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("semcat {{.Version}}\n")
	root.SetUsageTemplate(usageTemplate)
	root.CompletionOptions.DisableDefaultCmd = true
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		if cmd == root {
			usage(cmd.OutOrStdout())
			return
		}
		defaultHelp(cmd, args)
	})
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		shortUsage(cmd)
		return cliFlagError(cmd, err)
	})
	r.register(root.PersistentFlags())
	root.PersistentFlags().BoolVar(&r.json, "json", false, "print the result as JSON, in the REST API's shapes")

	root.AddCommand(
		searchCommand(r), suggestCommand(r), metricsCommand(r),
		metalakesCommand.command(r), catalogsCommand.command(r), schemasCommand.command(r),
		tablesCommand.command(r), modelsCommand.command(r),
		tagsCommand(r), policiesCommand(r), synonymsCommand(r), metadataCommand(r), reindexCommand(r), importCommand(r), statusCommand(r), mcpCommand(r),
		serveCommand(getenv), resetCommand(getenv), versionCommand(), completionCommand(root),
	)
	for _, c := range root.Commands() {
		if c.Annotations[localAnnotation] != "" {
			pre := c.PreRunE
			c.PreRunE = func(cmd *cobra.Command, args []string) error {
				if err := noRemoteFlags(cmd, args); err != nil {
					return err
				}
				if pre != nil {
					return pre(cmd, args)
				}
				return nil
			}
		}
	}
	return root
}

// localAnnotation marks the commands that run here, not against a server,
// and take none of the remote flags.
const localAnnotation = "semcat.local"

var local = map[string]string{localAnnotation: "yes"}

// noRemoteFlags fails when a command that runs here was given a remote
// flag, before or after its name.
func noRemoteFlags(cmd *cobra.Command, args []string) error {
	given := slices.ContainsFunc(remoteFlags, func(name string) bool { return cmd.Flags().Changed(name) })
	if cmd.DisableFlagParsing {
		// Its arguments are all of the command line but its name.
		given = slices.ContainsFunc(args, func(a string) bool {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			return strings.HasPrefix(a, "-") && slices.Contains(remoteFlags, name)
		})
	}
	if given {
		return usagef("%s takes no --server, --user, --token, --metalake or --json", cmd.Name())
	}
	return nil
}

// commandNames lists the commands of root, for did-you-mean.
func commandNames(cmd *cobra.Command) []string {
	var names []string
	for _, c := range cmd.Root().Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return names
}

// argsBetween is a command's check that it got between atLeast and atMost
// positional arguments (atMost < 0: any number).
func argsBetween(atLeast, atMost int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < atLeast || atMost >= 0 && len(args) > atMost {
			shortUsage(cmd)
			return usagef("%s: wrong number of arguments", strings.TrimPrefix(cmd.CommandPath(), "semcat "))
		}
		return nil
	}
}

// shortUsage writes the usage line of cmd, as a usage error shows it, and
// where its flags are told.
func shortUsage(cmd *cobra.Command) {
	fmt.Fprintf(cmd.ErrOrStderr(), "usage: %s\n(%s --help: what it does, and its flags)\n", cmd.UseLine(), cmd.CommandPath())
}

// command returns the run of cmd, a command that talks to a server.
func (r *remote) command(cmd *cobra.Command) *command {
	return &command{remote: r, name: strings.TrimPrefix(cmd.CommandPath(), "semcat "), stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr()}
}

// groupCommand is a command of subcommands (semcat tables list|get): on its
// own, or with a subcommand it does not have, it prints synopsis and fails
// as bad usage.
func groupCommand(name, short, synopsis string, subs ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{
		Use:   name + " <subcommand>",
		Short: short,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(cmd.ErrOrStderr(), "usage: semcat %s %s\n", name, synopsis)
			if len(args) == 0 {
				return usagef("%s: which subcommand? (want %s)", name, strings.Join(subNames(cmd), ", "))
			}
			return usagef("%s: unknown subcommand %q (want %s)%s", name, args[0], strings.Join(subNames(cmd), ", "), didYouMean(args[0], subNames(cmd)))
		},
	}
	g.AddCommand(subs...)
	return g
}

// subNames lists the subcommands of cmd.
func subNames(cmd *cobra.Command) []string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return names
}

// completeValues completes a flag or argument from a fixed list.
func completeValues(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

// typesFlag adds --type, the entity types a search or type-ahead is for,
// completed from its values.
func typesFlag(cmd *cobra.Command, types *listFlag) {
	cmd.Flags().Var(types, "type", "only these entity types: "+strings.Join(searchTypeNames, ", ")+" (repeatable, or a comma list)")
	_ = cmd.RegisterFlagCompletionFunc("type", completeValues(searchTypeNames...))
}

// completeIdentifier completes the dotted identifier of a shape
// ("metalake.catalog.schema.table") one level at a time, asking the server
// for the names under what is typed: from the metalake, and from the level
// below the default metalake, which may be left out. shape gives the
// identifier's shape from the arguments before it ("": none).
func completeIdentifier(r *remote, shape func(args []string) string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		s := shape(args)
		if s == "" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := r.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
		defer cancel()
		levels := strings.Split(s, ".")
		typed := strings.Split(toComplete, ".")
		parent, last := typed[:len(typed)-1], typed[len(typed)-1]
		shown := strings.Join(parent, ".")
		if shown != "" {
			shown += "."
		}
		var out []cobra.Completion
		// add offers the names under path (from the metalake down) that
		// start with the last typed level.
		add := func(path []string) bool {
			if len(path) >= len(levels) {
				return false
			}
			names, err := childNames(ctx, c, levels[len(path)], path)
			if err != nil {
				return false
			}
			for _, n := range names {
				if !strings.HasPrefix(n, last) {
					continue
				}
				if len(path) < len(levels)-1 {
					n += "."
				}
				out = append(out, shown+n)
			}
			return true
		}
		ok := add(parent)
		if len(levels) > 1 {
			if m, err := r.defaultMetalake(ctx, c); err == nil && (len(parent) == 0 || parent[0] != m) {
				ok = add(append([]string{m}, parent...)) || ok
			}
		}
		if !ok {
			return nil, cobra.ShellCompDirectiveError
		}
		slices.Sort(out)
		directive := cobra.ShellCompDirectiveNoFileComp
		if slices.ContainsFunc(out, func(s string) bool { return strings.HasSuffix(s, ".") }) {
			directive |= cobra.ShellCompDirectiveNoSpace // a level follows
		}
		return out, directive
	}
}

// completeTags completes a flag whose value is a tag of the metalake
// (--metalake, or the server's only one).
func completeTags(r *remote) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		c, err := r.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
		defer cancel()
		m, err := r.defaultMetalake(ctx, c)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		names, err := c.ListTags(ctx, m)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// childNames lists the names of the entities of one level (of an
// identifier shape: "metalake", "catalog", "schema", "table",
// "semantic_model", "tag" or "policy") under path, from the metalake down.
func childNames(ctx context.Context, c *apiclient.Client, level string, path []string) ([]string, error) {
	ns := namespace(path)
	switch level {
	case "metalake":
		ms, err := c.ListMetalakes(ctx)
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.Name
		}
		return names, err
	case "catalog":
		cs, err := c.ListCatalogs(ctx, ns.Metalake)
		names := make([]string, len(cs))
		for i, cat := range cs {
			names[i] = cat.Name
		}
		return names, err
	case "schema":
		return c.ListSchemas(ctx, ns)
	case "table":
		return c.ListTables(ctx, ns)
	case "semantic_model":
		return c.ListSemanticModels(ctx, ns)
	case "tag":
		return c.ListTags(ctx, ns.Metalake)
	case "policy":
		return c.ListPolicies(ctx, ns.Metalake)
	}
	return nil, fmt.Errorf("no names of %s", level)
}

// objectShape is the identifier shape of semcat tags object|associate and
// semcat metadata: the object type is the first argument.
func objectShape(args []string) string {
	if len(args) != 1 {
		return ""
	}
	return objectShapes[semcat.EntityKind(args[0])]
}

// firstArg is an identifier shape for a command's first argument only.
func firstArg(shape string) func(args []string) string {
	return func(args []string) string {
		if len(args) > 0 {
			return ""
		}
		return shape
	}
}

// completionTimeout bounds the server calls of one completion: a Tab
// waits at most this long for a slow server.
const completionTimeout = 10 * time.Second
