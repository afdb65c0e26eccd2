package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
)

const tagsSynopsis = `list [metalake] | get <[metalake.]tag> | create <[metalake.]tag> [--comment C] [--property k=v]... |
                   drop <[metalake.]tag> | object <type> <identifier> |
                   associate <type> <identifier> [--add t1,t2] [--remove t3]
(type: catalog, schema, table or semantic_model; identifier dotted from the metalake, which may be left out)`

// runTags runs `semcat tags ...`: the tags of a metalake, and the tags of
// its objects.
func runTags(args []string, r *remote, stdout, stderr io.Writer) error {
	// The number of arguments of each subcommand, at least and at most.
	arity := map[string][2]int{"list": {0, 1}, "get": {1, 1}, "create": {1, 1}, "drop": {1, 1}, "object": {2, 2}, "associate": {2, 2}}
	if _, ok := arity[safeIndex(args, 0)]; !ok {
		fmt.Fprintf(stderr, "usage: semcat tags %s\n", tagsSynopsis)
		if len(args) == 0 {
			return usagef("tags: which subcommand?")
		}
		return usagef("tags: unknown subcommand %q", args[0])
	}
	sub := args[0]
	cmd := newCommand("tags "+sub, tagsSynopsis, r, stdout, stderr)
	var comment string
	var add, remove listFlag
	var props repeatedFlag
	switch sub {
	case "create":
		cmd.fs.StringVar(&comment, "comment", "", "the tag's comment")
		cmd.fs.Var(&props, "property", "a property key=value (repeatable)")
	case "associate":
		cmd.fs.Var(&add, "add", "tags to add (repeatable, or a comma list)")
		cmd.fs.Var(&remove, "remove", "tags to remove (repeatable, or a comma list)")
	}
	pos, err := cmd.parse(args[1:], arity[sub][0], arity[sub][1])
	if err != nil {
		return err
	}
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	switch sub {
	case "list":
		return listTags(ctx, cmd, c, pos)
	case "get":
		return getTag(ctx, cmd, c, pos[0])
	case "create":
		return createTag(ctx, cmd, c, pos[0], comment, props)
	case "drop":
		return dropTag(ctx, cmd, c, pos[0])
	case "object":
		return objectTags(ctx, cmd, c, pos)
	}
	return associateTags(ctx, cmd, c, pos, add, remove)
}

// safeIndex returns args[i], or "" past the end.
func safeIndex(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func listTags(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
	metalake := ""
	if len(pos) == 1 {
		metalake = pos[0]
	} else {
		var err error
		if metalake, err = cmd.defaultMetalake(ctx, c); err != nil {
			return err
		}
	}
	names, err := c.ListTags(ctx, metalake)
	if err != nil {
		return err
	}
	return printNames(cmd, names, "tags in metalake "+metalake)
}

func getTag(ctx context.Context, cmd *command, c *apiclient.Client, id string) error {
	parts, err := cmd.resolve(ctx, c, id, "metalake.tag")
	if err != nil {
		return err
	}
	tag, err := c.GetTag(ctx, parts[0], parts[1])
	if err != nil || cmd.json {
		return orJSON(cmd, tag, err)
	}
	return printFields(cmd.stdout, append([]string{"tag", strings.Join(parts, "."), "comment", deref(tag.Comment),
		"properties", formatProperties(tag.Properties)}, auditFields(tag.Audit)...)...)
}

func dropTag(ctx context.Context, cmd *command, c *apiclient.Client, id string) error {
	parts, err := cmd.resolve(ctx, c, id, "metalake.tag")
	if err != nil {
		return err
	}
	dropped, _, err := c.DropTag(ctx, parts[0], parts[1])
	if err != nil {
		return err
	}
	if cmd.json {
		return printJSON(cmd.stdout, map[string]bool{"dropped": dropped})
	}
	if !dropped {
		return semcat.NotFound(semcat.KindTag, "tag '%s' does not exist in metalake '%s'", parts[1], parts[0])
	}
	fmt.Fprintf(cmd.stdout, "dropped tag %s\n", strings.Join(parts, "."))
	return nil
}

func createTag(ctx context.Context, cmd *command, c *apiclient.Client, id, comment string, props []string) error {
	parts, err := cmd.resolve(ctx, c, id, "metalake.tag")
	if err != nil {
		return err
	}
	req := semcat.TagCreate{Name: parts[1], Properties: map[string]string{}}
	if comment != "" {
		req.Comment = &comment
	}
	for _, p := range props {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return usagef("--property %q: want key=value", p)
		}
		req.Properties[k] = v
	}
	tag, _, err := c.CreateTag(ctx, parts[0], req)
	if err != nil || cmd.json {
		return orJSON(cmd, tag, err)
	}
	fmt.Fprintf(cmd.stdout, "created tag %s\n", strings.Join(parts, "."))
	return nil
}

func associateTags(ctx context.Context, cmd *command, c *apiclient.Client, pos, add, remove []string) error {
	if len(add)+len(remove) == 0 {
		return usagef("tags associate: give --add or --remove")
	}
	metalake, obj, err := objectRef(ctx, cmd, c, pos)
	if err != nil {
		return err
	}
	names, _, err := c.AssociateTags(ctx, metalake, obj, semcat.TagAssociation{TagsToAdd: add, TagsToRemove: remove}.Assignments())
	if err != nil {
		return err
	}
	return printNames(cmd, names, "tags on "+metalake+"."+obj.FullName)
}

func objectTags(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
	metalake, obj, err := objectRef(ctx, cmd, c, pos)
	if err != nil {
		return err
	}
	names, err := c.ListObjectTags(ctx, metalake, obj)
	if err != nil {
		return err
	}
	return printNames(cmd, names, "tags on "+metalake+"."+obj.FullName)
}

// objectShapes are the identifiers of the objects that carry tags and
// metadata, by type.
var objectShapes = map[semcat.EntityKind]string{
	semcat.KindCatalog:       "metalake.catalog",
	semcat.KindSchema:        "metalake.catalog.schema",
	semcat.KindTable:         "metalake.catalog.schema.table",
	semcat.KindSemanticModel: "metalake.catalog.schema.semantic_model",
}

// objectRef reads the arguments <type> <identifier> of an object: its
// metalake and its reference in the metalake.
func objectRef(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) (string, semcat.ObjectRef, error) {
	kind := semcat.EntityKind(pos[0])
	shape, ok := objectShapes[kind]
	if !ok {
		kinds := make([]string, 0, len(objectShapes))
		for k := range objectShapes {
			kinds = append(kinds, string(k))
		}
		sort.Strings(kinds)
		return "", semcat.ObjectRef{}, usagef("unknown object type %q (want %s)", pos[0], strings.Join(kinds, ", "))
	}
	parts, err := cmd.resolve(ctx, c, pos[1], shape)
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	return parts[0], semcat.ObjectRef{Type: kind, FullName: strings.Join(parts[1:], ".")}, nil
}

// runMetadata runs `semcat metadata <type> <identifier>`: the system and
// user metadata of an object.
func runMetadata(args []string, r *remote, stdout, stderr io.Writer) error {
	cmd := newCommand("metadata", "[flags] <type> <identifier>  (type: catalog, schema, table or semantic_model)", r, stdout, stderr)
	pos, err := cmd.parse(args, 2, 2)
	if err != nil {
		return err
	}
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	metalake, obj, err := objectRef(ctx, cmd, c, pos)
	if err != nil {
		return err
	}
	md, err := c.ObjectMetadata(ctx, metalake, obj)
	if err != nil || cmd.json {
		return orJSON(cmd, md, err)
	}
	t := newTable(stdout, "SCOPE", "KEY", "VALUE")
	for _, part := range []struct {
		scope string
		md    semcat.MetadataPart
	}{{"system", md.System}, {"user", md.User}} {
		keys := make([]string, 0, len(part.md.Properties))
		for k := range part.md.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.row(part.scope, k, clip(part.md.Properties[k], 80))
		}
		if len(part.md.Tags) > 0 {
			t.row(part.scope, "tags", strings.Join(part.md.Tags, ", "))
		}
	}
	return t.flush()
}
