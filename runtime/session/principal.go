package session

import "context"

type principalKey struct{}

// WithPrincipal returns ctx naming the principal that a request speaks for,
// as an authorization layer in front of the server found it (runtime/bearer
// does this for the requests it lets through). The runtime binds to it what
// must not pass from one user to another: the requestState a server of the
// stateless era seals (SealWith) opens only for a retry by the same
// principal.
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// PrincipalOf returns the principal WithPrincipal put in ctx, or "" for
// none.
func PrincipalOf(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}
