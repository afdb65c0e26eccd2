package main

import (
	"fmt"
	"io"
	"strings"
)

// subcommands are the second words of the commands that have them.
var subcommands = map[string][]string{
	"metalakes": {"list", "get"},
	"catalogs":  {"list", "get"},
	"schemas":   {"list", "get"},
	"tables":    {"list", "get"},
	"models":    {"list", "get"},
	"tags":      {"list", "get", "create", "drop", "object", "associate"},
}

// completion prints the completion script of a shell: commands, their
// subcommands and the flags every server command takes.
func completion(args []string, w io.Writer) error {
	if len(args) != 1 || (args[0] != "bash" && args[0] != "zsh") {
		return usagef("completion: give the shell, bash or zsh: source <(semcat completion bash)")
	}
	var cases strings.Builder
	for _, c := range commandNames() {
		if subs, ok := subcommands[c]; ok {
			fmt.Fprintf(&cases, "    %s) words=%q ;;\n", c, strings.Join(subs, " "))
		}
	}
	script := fmt.Sprintf(`# semcat completion (%[1]s): source <(semcat completion %[1]s)
_semcat() {
  local cur=${COMP_WORDS[COMP_CWORD]} words
  if [[ $cur == -* ]]; then
    words="--server --user --token --metalake --json --help"
    case ${COMP_WORDS[1]} in
    search) words="$words --type --catalog --schema --tag --scope --sort --limit --offset --cursor --facets --facet-size --min-position --wait" ;;
    suggest) words="$words --type --limit" ;;
    esac
  elif (( COMP_CWORD == 1 )); then
    words=%[2]q
  elif (( COMP_CWORD == 2 )); then
    case ${COMP_WORDS[1]} in
%[3]s    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
`, args[0], strings.Join(commandNames(), " "), cases.String())
	if args[0] == "zsh" {
		script += "autoload -U +X bashcompinit && bashcompinit\n"
	}
	script += "complete -F _semcat semcat\n"
	_, err := io.WriteString(w, script)
	return err
}
