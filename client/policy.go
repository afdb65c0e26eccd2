package client

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

var _ semcat.PolicyService = (*Client)(nil)

// policiesPath returns the path of the policies of a metalake.
func policiesPath(metalake string) (string, error) {
	p, err := metalakePath(metalake)
	return p + "/policies", err
}

// policyPath returns the path of a policy.
func policyPath(metalake, name string) (string, error) {
	p, err := policiesPath(metalake)
	if err != nil {
		return "", err
	}
	return child(p, name)
}

// CreatePolicy creates a policy in a metalake.
func (c *Client) CreatePolicy(ctx context.Context, metalake string, req semcat.PolicyCreate) (*semcat.Policy, semcat.Position, error) {
	p, err := policiesPath(metalake)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Policy](ctx, c, request{method: http.MethodPost, path: p, body: req}, "policy")
}

// ListPolicies lists the names of the policies of a metalake, sorted.
func (c *Client) ListPolicies(ctx context.Context, metalake string) ([]string, error) {
	p, err := policiesPath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[]string](ctx, c, request{method: http.MethodGet, path: p}, "names")
}

// ListPolicyInfos lists a metalake's policies with their details.
func (c *Client) ListPolicyInfos(ctx context.Context, metalake string) ([]*semcat.Policy, error) {
	p, err := policiesPath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[]*semcat.Policy](ctx, c, request{method: http.MethodGet, path: p, query: trueParam("details", true)}, "policies")
}

// GetPolicy loads a policy.
func (c *Client) GetPolicy(ctx context.Context, metalake, name string) (*semcat.Policy, error) {
	p, err := policyPath(metalake, name)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Policy](ctx, c, request{method: http.MethodGet, path: p}, "policy")
}

// AlterPolicy applies updates to a policy: rename, updateComment,
// updateContent.
func (c *Client) AlterPolicy(ctx context.Context, metalake, name string, updates []semcat.PolicyUpdate) (*semcat.Policy, semcat.Position, error) {
	p, err := policyPath(metalake, name)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Policy](ctx, c, request{method: http.MethodPut, path: p, body: semcat.PolicyUpdatesRequest{Updates: updates}}, "policy")
}

// SetPolicyEnabled enables or disables a policy.
func (c *Client) SetPolicyEnabled(ctx context.Context, metalake, name string, enable bool) (semcat.Position, error) {
	p, err := policyPath(metalake, name)
	if err != nil {
		return semcat.Position{}, err
	}
	return writeNothing(ctx, c, request{method: http.MethodPatch, path: p, body: map[string]bool{"enable": enable}})
}

// DropPolicy drops a policy and detaches it from every object. It reports
// false if there was no such policy.
func (c *Client) DropPolicy(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	p, err := policyPath(metalake, name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p}, "dropped")
}

// PolicyObjects lists the objects a policy is attached to directly (those
// the caller may see).
func (c *Client) PolicyObjects(ctx context.Context, metalake, name string) ([]semcat.TaggedObject, error) {
	p, err := policyPath(metalake, name)
	if err != nil {
		return nil, err
	}
	return get[[]semcat.TaggedObject](ctx, c, request{method: http.MethodGet, path: p + "/objects"}, "metadataObjects")
}

// ListObjectPolicies lists the names of an object's policies: its own,
// sorted, then those it inherits from its schema and catalog.
func (c *Client) ListObjectPolicies(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	return get[[]string](ctx, c, request{method: http.MethodGet, path: p + "/policies"}, "names")
}

// ObjectPolicyInfos lists an object's policies, its own and inherited
// (Inherited tells them apart).
func (c *Client) ObjectPolicyInfos(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]*semcat.Policy, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	return get[[]*semcat.Policy](ctx, c, request{method: http.MethodGet, path: p + "/policies", query: trueParam("details", true)}, "policies")
}

// GetObjectPolicy loads one policy of an object, its own or inherited;
// ENOTFOUND if it carries neither.
func (c *Client) GetObjectPolicy(ctx context.Context, metalake string, obj semcat.ObjectRef, policy string) (*semcat.Policy, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	if p, err = child(p+"/policies", policy); err != nil {
		return nil, err
	}
	return get[*semcat.Policy](ctx, c, request{method: http.MethodGet, path: p}, "policy")
}

// AssociatePolicies attaches and detaches policies of an object and
// returns the names of its own policies afterwards. Policies that do not
// exist are ignored; attaching one the object holds fails with EEXISTS.
func (c *Client) AssociatePolicies(ctx context.Context, metalake string, obj semcat.ObjectRef, req semcat.PolicyAssociation) ([]string, semcat.Position, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[[]string](ctx, c, request{method: http.MethodPost, path: p + "/policies", body: req}, "names")
}
