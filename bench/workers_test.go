package bench

import (
	"sync"
	"sync/atomic"
	"testing"
)

// runWorkers performs b.N calls of f from exactly workers goroutines, and
// stops at the first error.
func runWorkers(b *testing.B, workers int, f func() error) {
	b.Helper()
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	n := int64(b.N)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= n {
				if err := f(); err != nil {
					once.Do(func() { first = err })
					next.Store(n)
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		b.Fatal(first)
	}
}
