package quota

import "testing"

func TestDefaultPerPrincipal(t *testing.T) {
	for _, tt := range []struct{ max, want int }{
		{10_000, 100}, {1500, 15}, {200, 10}, {1, 10}, {-1, UnlimitedPerPrincipal},
	} {
		if got := DefaultPerPrincipal(tt.max); got != tt.want {
			t.Errorf("DefaultPerPrincipal(%d) = %d, want %d", tt.max, got, tt.want)
		}
	}
}

// A user at the limit is refused while another still gets in; a place
// comes back only with Release, once per Acquire: a Release that matches
// no Acquire (a second one for the same session, say) gives no user a
// place more.
func TestSessions(t *testing.T) {
	q := New(4, 2)
	for range 2 {
		if err := q.Acquire("alice"); err != nil {
			t.Fatal(err)
		}
	}
	if le := q.Acquire("alice"); le == nil || !le.PerPrincipal || le.Max != 2 {
		t.Fatalf("alice's third Acquire: %v; want her limit of 2", le)
	}
	if err := q.Acquire("bob"); err != nil {
		t.Fatalf("bob's Acquire: %v", err)
	}
	if err := q.Acquire(""); err != nil { // no principal: counts in all only
		t.Fatalf("Acquire without a principal: %v", err)
	}
	if le := q.Acquire("carol"); le == nil || le.PerPrincipal || le.Max != 4 {
		t.Fatalf("Acquire past 4 in all: %v; want the server's limit", le)
	}
	q.Release("alice")
	q.Release("alice")
	q.Release("alice") // one too many: no place more
	q.Release("dave")  // never acquired
	if n := q.Live(); n != 2 {
		t.Errorf("Live() = %d, want 2 (bob's and the one without a principal)", n)
	}
	for range 2 {
		if err := q.Acquire("alice"); err != nil {
			t.Fatalf("alice's Acquire after her Releases: %v", err)
		}
	}
	if err := q.Acquire("alice"); err == nil {
		t.Fatal("alice got a third place: a Release without an Acquire gave one back")
	}
}

// Limits that are not positive are none.
func TestSessionsUnlimited(t *testing.T) {
	q := New(-1, 0)
	for range 1000 {
		if err := q.Acquire("alice"); err != nil {
			t.Fatal(err)
		}
	}
}
