package dpop

import "time"

// SetCacheClock sets the clock of c.
func SetCacheClock(c *MemoryReplayCache, now func() time.Time) { c.now = now }
