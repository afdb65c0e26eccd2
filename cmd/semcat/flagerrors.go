package main

import (
	"errors"
	"flag"
	"fmt"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flag mistakes are written for people: the flag named as it is typed
// (--limit), what its value should have been in words rather than a Go
// parse error, and the flag that was probably meant for an unknown one.

// cliFlagError rewrites a flag error of cmd's command line (pflag's typed
// errors) as a usage error.
func cliFlagError(cmd *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
	)
	switch {
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if short := notExist.GetSpecifiedShortnames(); short != "" && short != name {
			return usagef("unknown flag -%s in -%s%s", name, short, didYouMeanFlag(name, flagNames(cmd.Flags())))
		}
		if short := notExist.GetSpecifiedShortnames(); short != "" {
			return usagef("unknown flag -%s%s", name, didYouMeanFlag(name, flagNames(cmd.Flags())))
		}
		return usagef("unknown flag --%s%s", name, didYouMeanFlag(name, flagNames(cmd.Flags())))
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		return usagef("--%s: %q is not %s", f.Name, invalid.GetValue(), valueKind(f.Value.Type()))
	case errors.As(err, &required):
		return usagef("--%s needs a value", required.GetFlag().Name)
	}
	return usagef("%s", err)
}

// flagNames are the long names of the flags fs holds (a command's own and
// the ones it inherits).
func flagNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return names
}

// didYouMeanFlag is didYouMean for a flag name, naming the flag as it is
// typed (--limit).
func didYouMeanFlag(name string, names []string) string {
	if best := closest(name, names); best != "" {
		return fmt.Sprintf(" (did you mean --%s?)", best)
	}
	return ""
}

// valueKind says in words what a value of a flag type is.
func valueKind(typ string) string {
	switch typ {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 30s or 5m"
	case "stringSlice", "stringArray", "strings":
		return "a list of values"
	}
	return "a valid " + typ
}

// The standard library's flag package (semcat serve's flags) reports
// mistakes only as text.
var (
	stdUndefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	stdMissingValue  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	stdInvalidValue  = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]*): `)
)

// serveFlagError rewrites an error of fs.Parse (semcat serve's flags) as a
// usage error that names the flag as typed, and the flag probably meant for
// an unknown one.
func serveFlagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := stdUndefinedFlag.FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		return usagef("unknown flag --%s%s (semcat serve --help lists them)", m[1], didYouMeanFlag(m[1], names))
	}
	if m := stdMissingValue.FindStringSubmatch(msg); m != nil {
		return usagef("--%s needs a value", m[1])
	}
	if m := stdInvalidValue.FindStringSubmatch(msg); m != nil {
		return usagef("--%s: %q is not true or false", m[2], m[1])
	}
	return usagef("%s", msg)
}
