package bench

import (
	"context"
	"testing"
	"time"
)

// TestChild: a server started by startChild answers a session, reports its
// stats, and exits when stopped.
func TestChild(t *testing.T) {
	ch, err := startChild("mcpgen", "legacy")
	if err != nil {
		t.Fatal(err)
	}
	defer ch.stop()
	hc := loadHTTPClient(1)
	defer hc.CloseIdleConnections()
	err = withTimeout(time.Minute, func(ctx context.Context) error {
		s, err := openLegacy(ctx, hc, ch.url)
		if err != nil {
			return err
		}
		ans, err := s.call(ctx, 5)
		if err == nil {
			err = verifyEcho(ans, 5)
		}
		if err != nil {
			return err
		}
		return s.close(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ch.stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.HeapAlloc == 0 || st.Goroutines == 0 || st.Mallocs == 0 {
		t.Errorf("stats %+v: want a heap, goroutines and allocations", st)
	}
	if rss, err := ch.rss(); err != nil || rss <= 0 {
		t.Errorf("rss() = %d, %v", rss, err)
	}
	if _, err := ch.cpu(); err != nil {
		t.Errorf("cpu(): %v", err)
	}
	ch.stop()
	select {
	case <-ch.exited:
	default:
		t.Error("the child still runs after stop")
	}
}
