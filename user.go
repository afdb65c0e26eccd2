package semcat

import "context"

type userKey struct{}

// NewContextWithUser returns a context carrying the authenticated user name.
func NewContextWithUser(ctx context.Context, user string) context.Context {
	return context.WithValue(ctx, userKey{}, user)
}

// UserFromContext returns the authenticated user name, or "" if none.
func UserFromContext(ctx context.Context) string {
	u, _ := ctx.Value(userKey{}).(string)
	return u
}
