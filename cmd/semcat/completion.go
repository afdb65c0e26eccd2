package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// completionShells are the shells semcat completion writes a script for,
// and how.
var completionShells = map[string]func(root *cobra.Command, w io.Writer) error{
	"bash":       func(root *cobra.Command, w io.Writer) error { return root.GenBashCompletionV2(w, true) },
	"zsh":        func(root *cobra.Command, w io.Writer) error { return root.GenZshCompletion(w) },
	"fish":       func(root *cobra.Command, w io.Writer) error { return root.GenFishCompletion(w, true) },
	"powershell": func(root *cobra.Command, w io.Writer) error { return root.GenPowerShellCompletionWithDesc(w) },
}

// completionCommand is `semcat completion <shell>`: the shell's completion
// script of commands, subcommands and flags, the values of --type, --sort
// and the like, and identifiers and tags, which the script asks semcat
// (and semcat the server, at --server or SEMCAT_URL) for as they are typed.
func completionCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "print a shell completion script: source <(semcat completion bash)",
		Long: `print a shell completion script; load it with
  bash:        source <(semcat completion bash)
  zsh:         source <(semcat completion zsh)
  fish:        semcat completion fish | source
  powershell:  semcat completion powershell | Out-String | Invoke-Expression
It completes commands, flags and their values, and the identifiers and tags of
the server the command line names (--server, SEMCAT_URL).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || completionShells[args[0]] == nil {
				return usagef("completion: give the shell, bash, zsh, fish or powershell: source <(semcat completion bash)")
			}
			return nil
		},
		ValidArgs:   []cobra.Completion{"bash", "zsh", "fish", "powershell"},
		Annotations: local,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := completionShells[args[0]](root, cmd.OutOrStdout()); err != nil {
				return fmt.Errorf("completion: %w", err)
			}
			return nil
		},
	}
}
