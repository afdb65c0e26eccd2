package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/semcat/semcat"
)

var _ semcat.TagService = (*Client)(nil)

// tagsPath returns the path of the tags of a metalake.
func tagsPath(metalake string) (string, error) {
	p, err := metalakePath(metalake)
	return p + "/tags", err
}

// tagPath returns the path of a tag.
func tagPath(metalake, name string) (string, error) {
	p, err := tagsPath(metalake)
	if err != nil {
		return "", err
	}
	return child(p, name)
}

// CreateTag creates a tag in a metalake.
func (c *Client) CreateTag(ctx context.Context, metalake string, req semcat.TagCreate) (*semcat.Tag, semcat.Position, error) {
	p, err := tagsPath(metalake)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Tag](ctx, c, request{method: http.MethodPost, path: p, body: req}, "tag")
}

// ListTags lists the names of the tags of a metalake, sorted.
func (c *Client) ListTags(ctx context.Context, metalake string) ([]string, error) {
	p, err := tagsPath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[]string](ctx, c, request{method: http.MethodGet, path: p}, "names")
}

// GetTag loads a tag.
func (c *Client) GetTag(ctx context.Context, metalake, name string) (*semcat.Tag, error) {
	p, err := tagPath(metalake, name)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Tag](ctx, c, request{method: http.MethodGet, path: p}, "tag")
}

// DropTag drops a tag and removes it from every object. It reports false if
// there was no such tag.
func (c *Client) DropTag(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	p, err := tagPath(metalake, name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p}, "dropped")
}

// ListObjectTags lists the names of an object's tags (a catalog, schema,
// table or semantic model of the metalake): its own, sorted, then those it
// inherits from its schema and catalog.
func (c *Client) ListObjectTags(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	return get[[]string](ctx, c, request{method: http.MethodGet, path: p + "/tags"}, "names")
}

// ObjectTagInfos lists an object's tags, its own and inherited, with the
// values of each assignment.
func (c *Client) ObjectTagInfos(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]*semcat.ObjectTag, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	return get[[]*semcat.ObjectTag](ctx, c, request{method: http.MethodGet, path: p + "/tags", query: trueParam("details", true)}, "tags")
}

// AssociateTags assigns and unassigns tags of an object and returns the
// names of its own tags after the change: a tag-names request, or, when
// req.Valued, a tag-values one (see semcat.TagAssignments). Tags that do
// not exist are ignored; adding a tag the object holds with a tag-names
// request fails with EEXISTS.
func (c *Client) AssociateTags(ctx context.Context, metalake string, obj semcat.ObjectRef, req semcat.TagAssignments) ([]string, semcat.Position, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	r := request{method: http.MethodPost, path: p + "/tags"}
	if req.Valued {
		r.body, r.media = semcat.TagValuesAssociation{TagsToAdd: req.Add, TagsToRemove: req.Remove}, semcat.TagValuesMediaType
	} else {
		names := func(vs []semcat.TagValue) []string {
			out := []string{}
			for _, v := range vs {
				out = append(out, v.Name)
			}
			return out
		}
		r.body = semcat.TagAssociation{TagsToAdd: names(req.Add), TagsToRemove: names(req.Remove)}
	}
	return write[[]string](ctx, c, r, "names")
}

// AlterTag applies updates to a tag: rename, updateComment, setProperty,
// removeProperty.
func (c *Client) AlterTag(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Tag, semcat.Position, error) {
	p, err := tagPath(metalake, name)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Tag](ctx, c, request{method: http.MethodPut, path: p, body: semcat.UpdatesRequest{Updates: updates}}, "tag")
}

// ListTagInfos lists a metalake's tags with their details.
func (c *Client) ListTagInfos(ctx context.Context, metalake string) ([]*semcat.Tag, error) {
	p, err := tagsPath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[]*semcat.Tag](ctx, c, request{method: http.MethodGet, path: p, query: trueParam("details", true)}, "tags")
}

// TagObjects lists the objects a tag is attached to; a value other than ""
// keeps those with an assignment of that value.
func (c *Client) TagObjects(ctx context.Context, metalake, name, value string) ([]semcat.TaggedObject, error) {
	p, err := tagPath(metalake, name)
	if err != nil {
		return nil, err
	}
	var q url.Values
	if value != "" {
		q = url.Values{"value": {value}}
	}
	return get[[]semcat.TaggedObject](ctx, c, request{method: http.MethodGet, path: p + "/objects", query: q}, "metadataObjects")
}

// GetObjectTag loads one tag of an object; ENOTFOUND if the object does
// not carry it.
func (c *Client) GetObjectTag(ctx context.Context, metalake string, obj semcat.ObjectRef, tag string) (*semcat.Tag, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	if p, err = child(p+"/tags", tag); err != nil {
		return nil, err
	}
	return get[*semcat.Tag](ctx, c, request{method: http.MethodGet, path: p}, "tag")
}
