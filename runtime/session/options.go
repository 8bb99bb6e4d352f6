package session

// OptionsHandler is implemented by a server's Handler that carries session
// Options of its own, set once on the server (a generated StandardServer's
// WithMiddleware, WithSessionOptions, …), so that every transport serves
// it with them: New (a stdio server, the sessions of streamhttp and
// ssehttp) and NewStateless (stateless requests over Streamable HTTP) run
// with MergeOptions(h, opts) rather than the opts they are given.
type OptionsHandler interface {
	Handler
	// SessionOptions returns the handler's Options. It is called once
	// per session (and per Stateless); the result must not change.
	SessionOptions() Options
}

// MergeOptions returns the Options a server whose handler is h runs with
// when a transport gives it opts. A handler that is no OptionsHandler
// runs with opts. Otherwise the handler's options are the base and opts,
// the transport's, are more specific:
//
//   - Middleware: the handler's, then the transport's: the handler's first
//     middleware is the outermost, the first to see a message;
//   - RejectUnknownVariants: set when either sets it;
//   - OnLegacyState: both, the handler's first, when both are set;
//   - every other field: the transport's value when it is not the zero
//     value (a nil Revisions included: the transport's Revisions replaces
//     the handler's only when it lists revisions), else the handler's.
func MergeOptions(h Handler, opts Options) Options {
	oh, ok := h.(OptionsHandler)
	if !ok {
		return opts
	}
	base := oh.SessionOptions()
	m := base
	if opts.Revisions != nil {
		m.Revisions = opts.Revisions
	}
	set(&m.MaxInFlight, opts.MaxInFlight)
	set(&m.CallTimeout, opts.CallTimeout)
	set(&m.DrainTimeout, opts.DrainTimeout)
	set(&m.StallTimeout, opts.StallTimeout)
	if opts.Logger != nil {
		m.Logger = opts.Logger
	}
	m.RejectUnknownVariants = base.RejectUnknownVariants || opts.RejectUnknownVariants
	if opts.Sealer != nil {
		m.Sealer = opts.Sealer
	}
	set(&m.StateAudience, opts.StateAudience)
	set(&m.ProbeTimeout, opts.ProbeTimeout)
	if opts.Cache != nil {
		m.Cache = opts.Cache
	}
	if opts.Extensions != nil {
		m.Extensions = opts.Extensions
	}
	switch h, t := base.OnLegacyState, opts.OnLegacyState; {
	case h == nil:
		m.OnLegacyState = t
	case t != nil:
		m.OnLegacyState = func(st LegacyState) {
			h(st)
			t(st)
		}
	}
	if len(opts.Middleware) > 0 {
		m.Middleware = append(append([]Middleware(nil), base.Middleware...), opts.Middleware...)
	}
	return m
}

// set replaces *dst by v unless v is the zero value.
func set[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}
