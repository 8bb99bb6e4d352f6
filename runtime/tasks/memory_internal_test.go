package tasks

import (
	"testing"
	"time"
)

// parked returns once n Waits are parked on s, or fails t after a bound.
func parked(t *testing.T, s *MemoryStore, n int) {
	t.Helper()
	for range 10000 {
		s.mu.Lock()
		w := s.waiting
		s.mu.Unlock()
		if w == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d Waits never parked", n)
}

// TestWaitParksAndWakes checks the path where Wait blocks before the write
// that wakes it, which the contract suite cannot force: a Wait parked on the
// record's channel wakes on an Update, and on the record's deletion.
func TestWaitParksAndWakes(t *testing.T) {
	tests := []struct {
		name  string
		write func(s *MemoryStore, id string) error
		want  uint64 // the version Wait returns; 0: ErrNotFound
	}{
		{"update", func(s *MemoryStore, id string) error {
			_, err := s.Update(t.Context(), id, "", func(r *Record) error { r.StatusMessage = "x"; return nil })
			return err
		}, 2},
		{"expire", func(s *MemoryStore, id string) error {
			_, err := s.Expire(t.Context(), time.Now().Add(2*time.Hour))
			return err
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewMemoryStore(MemoryOptions{})
			r, err := s.Create(t.Context(), &Record{ID: NewID(), Status: StatusWorking, TTL: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			type res struct {
				v   uint64
				err error
			}
			const waiters = 3
			ch := make(chan res, waiters)
			for range waiters {
				go func() {
					w, err := s.Wait(t.Context(), r.ID, "", 1)
					if err != nil {
						ch <- res{0, err}
						return
					}
					ch <- res{w.Version, nil}
				}()
			}
			parked(t, s, waiters)
			if err := tt.write(s, r.ID); err != nil {
				t.Fatal(err)
			}
			for range waiters {
				select {
				case got := <-ch:
					if got.v != tt.want || (tt.want == 0) != (got.err != nil) {
						t.Errorf("Wait returned version %d, %v; want version %d", got.v, got.err, tt.want)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("a parked Wait did not wake")
				}
			}
			parked(t, s, 0)
		})
	}
}
