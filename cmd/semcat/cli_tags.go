package main

import (
	"context"
	"fmt"
	"github.com/spf13/cobra"
	"sort"
	"strings"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
)

const tagsSynopsis = `list [metalake] | get <[metalake.]tag> | create <[metalake.]tag> [--comment C] [--property k=v]... |
                   drop <[metalake.]tag> | object <type> <identifier> |
                   associate <type> <identifier> [--add t1,t2] [--remove t3]
(type: catalog, schema, table or semantic_model; identifier dotted from the metalake, which may be left out)`

// tagsCommand is `semcat tags ...`: the tags of a metalake, and the tags
// of its objects.
func tagsCommand(r *remote) *cobra.Command {
	// sub makes one subcommand of n arguments at least and at most.
	sub := func(use, short string, atLeast, atMost int, complete cobra.CompletionFunc, run func(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error) *cobra.Command {
		return &cobra.Command{
			Use:               use,
			Short:             short,
			Args:              argsBetween(atLeast, atMost),
			ValidArgsFunction: complete,
			RunE: func(cc *cobra.Command, pos []string) error {
				cmd := r.command(cc)
				c, err := cmd.client()
				if err != nil {
					return err
				}
				ctx, stop := signalContext()
				defer stop()
				return run(ctx, cmd, c, pos)
			},
		}
	}
	tagID := completeIdentifier(r, firstArg("metalake.tag"))
	var comment string
	var add, remove listFlag
	var props repeatedFlag
	create := sub("create [flags] <[metalake.]tag>", "create a tag", 1, 1, tagID, func(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
		return createTag(ctx, cmd, c, pos[0], comment, props)
	})
	create.Flags().StringVar(&comment, "comment", "", "the tag's comment")
	create.Flags().Var(&props, "property", "a property key=value (repeatable)")
	associate := sub("associate [flags] <type> <identifier>", "add tags to an object, or remove them (type: "+objectTypes()+")", 2, 2,
		completeObject(r), func(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
			return associateTags(ctx, cmd, c, pos, add, remove)
		})
	associate.Flags().Var(&add, "add", "tags to add (repeatable, or a comma list)")
	associate.Flags().Var(&remove, "remove", "tags to remove (repeatable, or a comma list)")
	_ = associate.RegisterFlagCompletionFunc("add", completeTags(r))
	_ = associate.RegisterFlagCompletionFunc("remove", completeTags(r))
	return groupCommand("tags", "tags: list|get|create|drop|object|associate", tagsSynopsis,
		sub("list [flags] [metalake]", "list the tags of a metalake", 0, 1, completeIdentifier(r, firstArg("metalake")), listTags),
		sub("get [flags] <[metalake.]tag>", "show a tag", 1, 1, tagID, func(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
			return getTag(ctx, cmd, c, pos[0])
		}),
		create,
		sub("drop [flags] <[metalake.]tag>", "drop a tag", 1, 1, tagID, func(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
			return dropTag(ctx, cmd, c, pos[0])
		}),
		sub("object [flags] <type> <identifier>", "list the tags of an object (type: "+objectTypes()+")", 2, 2, completeObject(r), objectTags),
		associate,
	)
}

// completeObject completes the arguments <type> <identifier> of an object.
func completeObject(r *remote) cobra.CompletionFunc {
	ids := completeIdentifier(r, objectShape)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return completeValues(strings.Split(objectTypes(), ", ")...)(cmd, args, toComplete)
		}
		return ids(cmd, args, toComplete)
	}
}

// objectTypes lists the types of the objects that carry tags and
// metadata, sorted.
func objectTypes() string {
	kinds := make([]string, 0, len(objectShapes))
	for k := range objectShapes {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	return strings.Join(kinds, ", ")
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
		return "", semcat.ObjectRef{}, usagef("unknown object type %q (want %s)", pos[0], objectTypes())
	}
	parts, err := cmd.resolve(ctx, c, pos[1], shape)
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	return parts[0], semcat.ObjectRef{Type: kind, FullName: strings.Join(parts[1:], ".")}, nil
}

// metadataCommand is `semcat metadata <type> <identifier>`: the system
// and user metadata of an object.
func metadataCommand(r *remote) *cobra.Command {
	return &cobra.Command{
		Use:               "metadata [flags] <type> <identifier>",
		Short:             "an object's system and user metadata (type: " + objectTypes() + ")",
		Example:           "  semcat metadata table demo.hr.people.employees",
		Args:              argsBetween(2, 2),
		ValidArgsFunction: completeObject(r),
		RunE: func(cc *cobra.Command, pos []string) error {
			return runMetadata(r.command(cc), pos)
		},
	}
}

func runMetadata(cmd *command, pos []string) error {
	stdout := cmd.stdout
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
