package bearer

import "time"

// Decide is Introspector.decide, for the fuzz target.
func Decide(in *Introspector, body []byte) (*TokenInfo, error) { return in.decide(body, time.Now()) }

// SetClock makes v read the time from now; call it before v's first
// Verify.
func SetClock(v *JWTVerifier, now func() time.Time) { v.now = now }

// SetFetchTimeout sets the bound of one key set fetch of v; call it before
// v's first Verify.
func SetFetchTimeout(v *JWTVerifier, d time.Duration) { v.fetchTimeout = d }
