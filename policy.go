package semcat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// KindPolicy is the kind of a policy (Gravitino 1.0, SPEC §2.10): a named
// set of rules defined in a metalake and attached to catalog objects.
const KindPolicy EntityKind = "policy"

// PolicyTypeCustom is the policy type whose rules are the caller's own
// (customRules), the one semcat keeps. Gravitino's built-in types start
// with BuiltInPolicyPrefix; semcat has no consumer for them.
const (
	PolicyTypeCustom    = "custom"
	BuiltInPolicyPrefix = "system_"
)

// PolicyObjectTypes are the values of supportedObjectTypes: Gravitino's
// MetadataObject types that carry policies, and semcat's semantic models.
// They are accepted in any letter case and written in lower case, as
// Gravitino's server writes enums.
var PolicyObjectTypes = []string{"catalog", "schema", "table", "fileset", "topic", "model", "semantic_model"}

// PolicyContent is a policy's content as Gravitino's CustomContentDTO
// writes it: the rules (any JSON object, kept as given), the object types
// the policy supports, and properties of the policy itself.
type PolicyContent struct {
	CustomRules          json.RawMessage   `json:"customRules"`
	SupportedObjectTypes []string          `json:"supportedObjectTypes"`
	Properties           map[string]string `json:"properties"`
	// PolicyType, accepted inside a content as Gravitino's documented
	// examples send it, must name the policy's type; it is not kept.
	PolicyType *string `json:"policyType,omitempty"`
}

// Validate checks the content, as Gravitino does (supportedObjectTypes is
// not empty), and normalizes it: object types lower-cased and each once,
// customRules null as absent. path names the content in messages.
func (c *PolicyContent) Validate(path string) error {
	if len(c.SupportedObjectTypes) == 0 {
		return Errorf(EINVALID, "%s.supportedObjectTypes: cannot be empty", path)
	}
	var types []string
	for i, t := range c.SupportedObjectTypes {
		u := strings.ToLower(t)
		if !slices.Contains(PolicyObjectTypes, u) {
			return Errorf(EINVALID, "%s.supportedObjectTypes[%d]: unknown object type '%s' (want one of %s)", path, i, t, strings.Join(PolicyObjectTypes, ", "))
		}
		if !slices.Contains(types, u) {
			types = append(types, u)
		}
	}
	c.SupportedObjectTypes = types
	if c.PolicyType != nil {
		if _, err := ValidatePolicyType(path+".policyType", *c.PolicyType); err != nil {
			return err
		}
		c.PolicyType = nil
	}
	rules := bytes.TrimSpace(c.CustomRules)
	switch {
	case len(rules) == 0 || string(rules) == "null":
		c.CustomRules = nil
	case rules[0] != '{':
		return Errorf(EINVALID, "%s.customRules: must be a JSON object", path)
	}
	return ValidateProperties(path+".properties", c.Properties)
}

// Policy is a policy as Gravitino's PolicyDTO writes it. Inherited is null
// on the policy routes and, on an object's policies, whether the policy
// comes from an ancestor.
type Policy struct {
	ID         int64         `json:"-"`
	Name       string        `json:"name"`
	Comment    *string       `json:"comment"`
	PolicyType string        `json:"policyType"`
	Enabled    bool          `json:"enabled"`
	Content    PolicyContent `json:"content"`
	Inherited  *bool         `json:"inherited"`
	Audit      Audit         `json:"audit"`
}

// PolicyCreate is the body of a policy creation request (Gravitino's
// PolicyCreateRequest); enabled defaults to true.
type PolicyCreate struct {
	Name       string         `json:"name"`
	Comment    *string        `json:"comment"`
	PolicyType string         `json:"policyType"`
	Enabled    *bool          `json:"enabled"`
	Content    *PolicyContent `json:"content"`
}

// ValidatePolicyType checks a policy type as Gravitino's BuiltInType does
// (any letter case) and returns it in its canonical form. semcat keeps
// custom policies only: a built-in type is refused as unsupported.
func ValidatePolicyType(field, t string) (string, error) {
	switch {
	case strings.TrimSpace(t) == "":
		return "", Errorf(EINVALID, "%s: is required and cannot be empty", field)
	case strings.EqualFold(t, PolicyTypeCustom):
		return PolicyTypeCustom, nil
	case strings.HasPrefix(strings.ToLower(t), BuiltInPolicyPrefix):
		return "", Errorf(EINVALID, "%s: built-in policy type '%s' is not supported by semcat (use 'custom')", field, t)
	}
	return "", Errorf(EINVALID, "%s: unknown policy type '%s', it should start with '%s' or be 'custom'", field, t, BuiltInPolicyPrefix)
}

// Validate checks the request and normalizes its type and content.
func (c *PolicyCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	t, err := ValidatePolicyType("policyType", c.PolicyType)
	if err != nil {
		return err
	}
	c.PolicyType = t
	if c.Content == nil {
		return Errorf(EINVALID, "content: is required and cannot be null")
	}
	return c.Content.Validate("content")
}

// PolicyAssociation is the body of a request that changes an object's
// policies (Gravitino's PoliciesAssociateRequest).
type PolicyAssociation struct {
	PoliciesToAdd    []string `json:"policiesToAdd"`
	PoliciesToRemove []string `json:"policiesToRemove"`
}

// Validate checks the names, and that the request names at least one of
// the two lists, as Gravitino does.
func (a *PolicyAssociation) Validate() error {
	if a.PoliciesToAdd == nil && a.PoliciesToRemove == nil {
		return Errorf(EINVALID, "policiesToAdd, policiesToRemove: cannot both be null")
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"policiesToAdd", a.PoliciesToAdd}, {"policiesToRemove", a.PoliciesToRemove}} {
		for i, n := range l.names {
			if err := ValidateName(fmt.Sprintf("%s[%d]", l.field, i), n); err != nil {
				return err
			}
		}
	}
	return nil
}

// Effective is the change a request makes: a policy named in both lists
// is left as it is (as in Gravitino), and each name counts once.
func (a PolicyAssociation) Effective() PolicyAssociation {
	both := func(n string) bool {
		return slices.Contains(a.PoliciesToAdd, n) && slices.Contains(a.PoliciesToRemove, n)
	}
	var out PolicyAssociation
	for _, n := range a.PoliciesToAdd {
		if !both(n) && !slices.Contains(out.PoliciesToAdd, n) {
			out.PoliciesToAdd = append(out.PoliciesToAdd, n)
		}
	}
	for _, n := range a.PoliciesToRemove {
		if !both(n) && !slices.Contains(out.PoliciesToRemove, n) {
			out.PoliciesToRemove = append(out.PoliciesToRemove, n)
		}
	}
	return out
}

// PolicyObjectRef parses the object of a policy route: as ParseObjectRef,
// with the type in any letter case (Gravitino's clients send "TABLE").
func PolicyObjectRef(metalake, typ, fullName string) (ObjectRef, error) {
	obj, _, _, err := ParseObjectRef(metalake, strings.ToLower(typ), fullName)
	return obj, err
}

// NoSuchPolicy is the error for a policy that does not exist.
func NoSuchPolicy(metalake, name string) error {
	return NotFound(KindPolicy, "policy '%s.%s' does not exist", metalake, name)
}

// Policy update types (Gravitino's PolicyUpdateRequest); rename and
// updateComment are UpdateRename and UpdateComment.
const UpdatePolicyContent = "updateContent"

// PolicyUpdate is one change of a policy: {"@type": "rename", "newName"},
// {"@type": "updateComment", "newComment"} or {"@type": "updateContent",
// "policyType", "newContent"}.
type PolicyUpdate struct {
	Type       string         `json:"@type"`
	NewName    *string        `json:"newName,omitempty"`
	NewComment OptionalString `json:"newComment,omitzero"`
	PolicyType *string        `json:"policyType,omitempty"`
	NewContent *PolicyContent `json:"newContent,omitempty"`
}

// PolicyUpdatesRequest is the body of an alter request.
type PolicyUpdatesRequest struct {
	Updates []PolicyUpdate `json:"updates"`
}

// ValidatePolicyUpdates checks each update's members, as Gravitino's
// requests do, and normalizes the content of updateContent.
func ValidatePolicyUpdates(updates []PolicyUpdate) error {
	if updates == nil {
		return Errorf(EINVALID, "updates: must not be null")
	}
	for i, u := range updates {
		path := fmt.Sprintf("updates[%d]", i)
		extra := ""
		switch u.Type {
		case UpdateRename:
			if u.NewName == nil {
				return Errorf(EINVALID, "%s.newName: must not be blank", path)
			}
			if err := ValidateName(path+".newName", *u.NewName); err != nil {
				return err
			}
			if u.NewComment.Set || u.PolicyType != nil || u.NewContent != nil {
				extra = "newComment, policyType, newContent"
			}
		case UpdateComment:
			if u.NewName != nil || u.PolicyType != nil || u.NewContent != nil {
				extra = "newName, policyType, newContent"
			}
		case UpdatePolicyContent:
			if u.PolicyType == nil {
				return Errorf(EINVALID, "%s.policyType: must not be null", path)
			}
			t, err := ValidatePolicyType(path+".policyType", *u.PolicyType)
			if err != nil {
				return err
			}
			updates[i].PolicyType = &t
			if u.NewContent == nil {
				return Errorf(EINVALID, "%s.newContent: must not be null", path)
			}
			if err := u.NewContent.Validate(path + ".newContent"); err != nil {
				return err
			}
			if u.NewName != nil || u.NewComment.Set {
				extra = "newName, newComment"
			}
		default:
			return Errorf(EINVALID, "%s.@type: unsupported policy update '%s' (want rename, updateComment or updateContent)", path, u.Type)
		}
		if extra != "" {
			return Errorf(EINVALID, "%s: a %s update takes none of %s", path, u.Type, extra)
		}
	}
	return nil
}

// ApplyPolicyUpdates applies validated updates to p, in order. A content
// update must keep the policy's type (Gravitino: "Policy type mismatch").
func ApplyPolicyUpdates(p *Policy, updates []PolicyUpdate) error {
	for i, u := range updates {
		switch u.Type {
		case UpdateRename:
			p.Name = *u.NewName
		case UpdateComment:
			p.Comment = u.NewComment.Value
		case UpdatePolicyContent:
			if *u.PolicyType != p.PolicyType {
				return Errorf(EINVALID, "updates[%d].policyType: policy type mismatch: expected %s but got %s", i, p.PolicyType, *u.PolicyType)
			}
			p.Content = *u.NewContent
		}
	}
	return nil
}

// PolicyService manages policies and their association with objects.
type PolicyService interface {
	CreatePolicy(ctx context.Context, metalake string, req PolicyCreate) (*Policy, Position, error)
	GetPolicy(ctx context.Context, metalake, name string) (*Policy, error)
	// ListPolicies lists the names of a metalake's policies in byte order.
	ListPolicies(ctx context.Context, metalake string) ([]string, error)
	// ListPolicyInfos lists a metalake's policies in name order.
	ListPolicyInfos(ctx context.Context, metalake string) ([]*Policy, error)
	// AlterPolicy applies Gravitino's rename, updateComment and
	// updateContent changes, all or nothing.
	AlterPolicy(ctx context.Context, metalake, name string, updates []PolicyUpdate) (*Policy, Position, error)
	// SetPolicyEnabled enables or disables a policy.
	SetPolicyEnabled(ctx context.Context, metalake, name string, enable bool) (Position, error)
	// DropPolicy drops a policy and detaches it from every object.
	DropPolicy(ctx context.Context, metalake, name string) (bool, Position, error)
	// PolicyObjects lists the objects a policy is attached to directly.
	PolicyObjects(ctx context.Context, metalake, name string) ([]TaggedObject, error)
	// ObjectPolicyInfos lists an object's policies: its own, then those of
	// its schema and catalog (Inherited), each name once.
	ObjectPolicyInfos(ctx context.Context, metalake string, obj ObjectRef) ([]*Policy, error)
	// AssociatePolicies attaches and detaches policies of an object and
	// returns the names of its own policies afterwards. Policies that do
	// not exist are ignored; attaching one the object holds is
	// PolicyAlreadyAssociatedException.
	AssociatePolicies(ctx context.Context, metalake string, obj ObjectRef, req PolicyAssociation) ([]string, Position, error)
}

// PoliciesProperty is the system property that lists an object's own
// policies (", " between names, which hold neither): a policy is part of
// the object's system metadata, searchable by policies:name.
const PoliciesProperty = "policies"
