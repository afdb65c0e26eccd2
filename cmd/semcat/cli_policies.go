package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
)

const policiesSynopsis = `list [metalake] | get <[metalake.]policy> |
                   create <[metalake.]policy> --types TABLE,SCHEMA [--rules JSON] [--comment C] [--property k=v]... [--disabled] |
                   rename <[metalake.]policy> <new name> | enable|disable|drop|objects <[metalake.]policy> |
                   object <type> <identifier> | associate <type> <identifier> [--add p1,p2] [--remove p3]
(type: catalog, schema, table or semantic_model; identifier dotted from the metalake, which may be left out)`

// policiesCommand is `semcat policies ...`: the policies of a metalake
// (SPEC §2.10), and those of its objects, as `semcat tags` does for tags.
func policiesCommand(r *remote) *cobra.Command {
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
	policyID := completeIdentifier(r, firstArg("metalake.policy"))
	var (
		comment, rules string
		disabled       bool
		types          listFlag
		props          repeatedFlag
		add, remove    listFlag
	)
	create := sub("create [flags] <[metalake.]policy>", "create a custom policy", 1, 1, policyID, func(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
		return createPolicy(ctx, cmd, c, pos[0], comment, rules, types, props, disabled)
	})
	create.Flags().StringVar(&comment, "comment", "", "the policy's comment")
	create.Flags().StringVar(&rules, "rules", "", "the policy's rules, a JSON object (customRules)")
	create.Flags().Var(&types, "types", "the object types the policy supports: catalog, schema, table, ... (repeatable, or a comma list)")
	create.Flags().Var(&props, "property", "a property key=value (repeatable)")
	create.Flags().BoolVar(&disabled, "disabled", false, "create the policy disabled")
	associate := sub("associate [flags] <type> <identifier>", "attach policies to an object, or detach them (type: "+objectTypes()+")", 2, 2,
		completeObject(r), func(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
			return associatePolicies(ctx, cmd, c, pos, add, remove)
		})
	associate.Flags().Var(&add, "add", "policies to attach (repeatable, or a comma list)")
	associate.Flags().Var(&remove, "remove", "policies to detach (repeatable, or a comma list)")
	onePolicy := func(use, short string, run func(ctx context.Context, cmd *command, c *apiclient.Client, metalake, name string) error) *cobra.Command {
		return sub(use+" [flags] <[metalake.]policy>", short, 1, 1, policyID, func(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
			parts, err := cmd.resolve(ctx, c, pos[0], "metalake.policy")
			if err != nil {
				return err
			}
			return run(ctx, cmd, c, parts[0], parts[1])
		})
	}
	return groupCommand("policies", "policies: list|get|create|rename|enable|disable|drop|objects|object|associate", policiesSynopsis,
		sub("list [flags] [metalake]", "list the policies of a metalake", 0, 1, completeIdentifier(r, firstArg("metalake")), listPolicies),
		onePolicy("get", "show a policy", getPolicy),
		create,
		sub("rename [flags] <[metalake.]policy> <new name>", "rename a policy", 2, 2, policyID, renamePolicy),
		onePolicy("enable", "enable a policy", func(ctx context.Context, cmd *command, c *apiclient.Client, metalake, name string) error {
			return setPolicyEnabled(ctx, cmd, c, metalake, name, true)
		}),
		onePolicy("disable", "disable a policy", func(ctx context.Context, cmd *command, c *apiclient.Client, metalake, name string) error {
			return setPolicyEnabled(ctx, cmd, c, metalake, name, false)
		}),
		onePolicy("drop", "drop a policy (and detach it from every object)", dropPolicy),
		onePolicy("objects", "list the objects a policy is attached to", policyObjects),
		sub("object [flags] <type> <identifier>", "list the policies of an object, own and inherited (type: "+objectTypes()+")", 2, 2, completeObject(r), objectPolicies),
		associate,
	)
}

func listPolicies(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
	metalake := ""
	if len(pos) == 1 {
		metalake = pos[0]
	} else {
		var err error
		if metalake, err = cmd.defaultMetalake(ctx, c); err != nil {
			return err
		}
	}
	names, err := c.ListPolicies(ctx, metalake)
	if err != nil {
		return err
	}
	return printNames(cmd, names, "policies in metalake "+metalake)
}

func getPolicy(ctx context.Context, cmd *command, c *apiclient.Client, metalake, name string) error {
	p, err := c.GetPolicy(ctx, metalake, name)
	if err != nil || cmd.json {
		return orJSON(cmd, p, err)
	}
	rules := ""
	if len(p.Content.CustomRules) > 0 {
		rules = string(p.Content.CustomRules)
	}
	return printFields(cmd.stdout, append([]string{"policy", metalake + "." + p.Name, "type", p.PolicyType,
		"enabled", strconv.FormatBool(p.Enabled), "comment", deref(p.Comment),
		"object types", strings.Join(p.Content.SupportedObjectTypes, ", "), "rules", rules,
		"properties", formatProperties(p.Content.Properties)}, auditFields(p.Audit)...)...)
}

func createPolicy(ctx context.Context, cmd *command, c *apiclient.Client, id, comment, rules string, types, props []string, disabled bool) error {
	if len(types) == 0 {
		return usagef("policies create: give --types (the object types the policy supports)")
	}
	parts, err := cmd.resolve(ctx, c, id, "metalake.policy")
	if err != nil {
		return err
	}
	content := &semcat.PolicyContent{SupportedObjectTypes: types}
	if rules != "" {
		if !json.Valid([]byte(rules)) {
			return usagef("--rules: not valid JSON")
		}
		content.CustomRules = json.RawMessage(rules)
	}
	if len(props) > 0 {
		content.Properties = map[string]string{}
		for _, p := range props {
			k, v, ok := strings.Cut(p, "=")
			if !ok {
				return usagef("--property %q: want key=value", p)
			}
			content.Properties[k] = v
		}
	}
	enabled := !disabled
	req := semcat.PolicyCreate{Name: parts[1], PolicyType: semcat.PolicyTypeCustom, Enabled: &enabled, Content: content}
	if comment != "" {
		req.Comment = &comment
	}
	p, _, err := c.CreatePolicy(ctx, parts[0], req)
	if err != nil || cmd.json {
		return orJSON(cmd, p, err)
	}
	fmt.Fprintf(cmd.stdout, "created policy %s\n", strings.Join(parts, "."))
	return nil
}

func renamePolicy(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
	parts, err := cmd.resolve(ctx, c, pos[0], "metalake.policy")
	if err != nil {
		return err
	}
	p, _, err := c.AlterPolicy(ctx, parts[0], parts[1], []semcat.PolicyUpdate{{Type: semcat.UpdateRename, NewName: &pos[1]}})
	if err != nil || cmd.json {
		return orJSON(cmd, p, err)
	}
	fmt.Fprintf(cmd.stdout, "renamed policy %s to %s\n", strings.Join(parts, "."), p.Name)
	return nil
}

func setPolicyEnabled(ctx context.Context, cmd *command, c *apiclient.Client, metalake, name string, enable bool) error {
	if _, err := c.SetPolicyEnabled(ctx, metalake, name, enable); err != nil {
		return err
	}
	if cmd.json {
		return printJSON(cmd.stdout, map[string]bool{"enabled": enable})
	}
	verb := "disabled"
	if enable {
		verb = "enabled"
	}
	fmt.Fprintf(cmd.stdout, "%s policy %s.%s\n", verb, metalake, name)
	return nil
}

func dropPolicy(ctx context.Context, cmd *command, c *apiclient.Client, metalake, name string) error {
	dropped, _, err := c.DropPolicy(ctx, metalake, name)
	if err != nil {
		return err
	}
	if cmd.json {
		return printJSON(cmd.stdout, map[string]bool{"dropped": dropped})
	}
	if !dropped {
		return semcat.NoSuchPolicy(metalake, name)
	}
	fmt.Fprintf(cmd.stdout, "dropped policy %s.%s\n", metalake, name)
	return nil
}

func policyObjects(ctx context.Context, cmd *command, c *apiclient.Client, metalake, name string) error {
	objs, err := c.PolicyObjects(ctx, metalake, name)
	if err != nil {
		return err
	}
	if cmd.json {
		return printJSON(cmd.stdout, map[string]any{"metadataObjects": objs})
	}
	if len(objs) == 0 {
		fmt.Fprintf(cmd.stdout, "no objects carry policy %s.%s\n", metalake, name)
		return nil
	}
	t := newTable(cmd.stdout, "TYPE", "IDENTIFIER")
	for _, o := range objs {
		t.row(string(o.Type), metalake+"."+o.FullName)
	}
	return t.flush()
}

// objectPolicies lists an object's policies: NAME, ENABLED and INHERITED,
// or with --json the REST API's details=true listing.
func objectPolicies(ctx context.Context, cmd *command, c *apiclient.Client, pos []string) error {
	metalake, obj, err := objectRef(ctx, cmd, c, pos)
	if err != nil {
		return err
	}
	ps, err := c.ObjectPolicyInfos(ctx, metalake, obj)
	if err != nil {
		return err
	}
	if cmd.json {
		return printJSON(cmd.stdout, map[string]any{"policies": ps})
	}
	if len(ps) == 0 {
		fmt.Fprintf(cmd.stdout, "no policies on %s.%s\n", metalake, obj.FullName)
		return nil
	}
	t := newTable(cmd.stdout, "NAME", "ENABLED", "INHERITED")
	for _, p := range ps {
		t.row(p.Name, strconv.FormatBool(p.Enabled), strconv.FormatBool(p.Inherited != nil && *p.Inherited))
	}
	return t.flush()
}

func associatePolicies(ctx context.Context, cmd *command, c *apiclient.Client, pos, add, remove []string) error {
	if len(add)+len(remove) == 0 {
		return usagef("policies associate: give --add or --remove")
	}
	metalake, obj, err := objectRef(ctx, cmd, c, pos)
	if err != nil {
		return err
	}
	names, _, err := c.AssociatePolicies(ctx, metalake, obj, semcat.PolicyAssociation{PoliciesToAdd: add, PoliciesToRemove: remove})
	if err != nil {
		return err
	}
	return printNames(cmd, names, "policies on "+metalake+"."+obj.FullName)
}
