package bearer

import "time"

// Decide is Introspector.decide, for the fuzz target.
func Decide(in *Introspector, body []byte) (*TokenInfo, error) { return in.decide(body, time.Now()) }
