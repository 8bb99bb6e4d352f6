package tasks

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// DefaultMaxTasks is the most records a MemoryStore holds unless
// MemoryOptions.MaxTasks says otherwise.
const DefaultMaxTasks = 10000

// DefaultMaxTasksPerPrincipal is the most records of one principal a
// MemoryStore holds unless MemoryOptions.MaxTasksPerPrincipal says
// otherwise.
const DefaultMaxTasksPerPrincipal = 1000

// DefaultMaxBytes is the most bytes of payload (see MemoryOptions.MaxBytes)
// a MemoryStore holds unless MemoryOptions.MaxBytes says otherwise.
const DefaultMaxBytes = 256 << 20

// updateAttempts bounds the compare-and-set rounds of one Update.
const updateAttempts = 16

// MemoryOptions configures a MemoryStore. The zero value gives the defaults.
type MemoryOptions struct {
	// MaxTasks is the most records the store holds, terminal ones included;
	// 0 or less means DefaultMaxTasks. When it is reached, Create first
	// deletes the expired records, then refuses with ErrFull if none was.
	MaxTasks int
	// MaxBytes is the most bytes of payload the store holds, all records
	// together: their params, results, errors, status messages, and
	// outstanding and answered inputs (the parts whose size a client or a
	// tool chooses); 0 or less means DefaultMaxBytes. A Create or an
	// Update that would go past it fails with ErrFull (Create after
	// deleting the expired records), and the store is unchanged.
	MaxBytes int64
	// MaxTasksPerPrincipal is the most records of one principal the store
	// holds, so that one user cannot fill it for all; 0 means
	// DefaultMaxTasksPerPrincipal, a negative value no limit. The records
	// of the principal "" (unauthenticated requests) count against
	// MaxTasks only. Create past it fails with ErrFull.
	MaxTasksPerPrincipal int
	// Now returns the current time; nil means time.Now. Tests inject a fake
	// clock here. It stamps CreatedAt (when zero) and UpdatedAt, and decides
	// what is expired when Create finds the store full.
	Now func() time.Time
}

// MemoryStore is the Store of a single process: records in a map under a
// mutex, each with a channel that is closed and replaced on every write to
// wake its waiters. Records are copied in and out, never shared with the
// caller. Its records live as long as the process: a server whose
// instances share tasks needs a Store outside the process. The zero value is
// not usable; call NewMemoryStore.
type MemoryStore struct {
	max       int
	maxBytes  int64
	maxPerPri int // <0: no limit
	now       func() time.Time

	mu    sync.Mutex
	recs  map[string]*memRecord
	bytes int64          // the payload of recs, by payloadSize
	owned map[string]int // records by principal, "" not counted
	// waiting counts the Waits parked on a channel, for tests.
	waiting int
}

// memRecord is a stored record and the channel its waiters park on.
type memRecord struct {
	rec  *Record
	wake chan struct{}
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts MemoryOptions) *MemoryStore {
	s := &MemoryStore{max: opts.MaxTasks, maxBytes: opts.MaxBytes, maxPerPri: opts.MaxTasksPerPrincipal, now: opts.Now, recs: map[string]*memRecord{}, owned: map[string]int{}}
	if s.maxPerPri == 0 {
		s.maxPerPri = DefaultMaxTasksPerPrincipal
	}
	if s.max <= 0 {
		s.max = DefaultMaxTasks
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxBytes
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

var _ Store = (*MemoryStore)(nil)

// Create implements Store.
func (s *MemoryStore) Create(ctx context.Context, r *Record) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: create: %w", err)
	}
	if r == nil {
		return nil, fmt.Errorf("tasks: create: nil record")
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("tasks: create: %w", err)
	}
	rec := r.Clone()
	rec.Version = 1
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now
	}
	rec.UpdatedAt = rec.CreatedAt
	if _, ok := s.recs[rec.ID]; ok {
		return nil, fmt.Errorf("tasks: create: id already in use: %w", ErrConflict)
	}
	size := payloadSize(rec)
	if len(s.recs) >= s.max || s.bytes+size > s.maxBytes || s.overQuota(rec.Principal) {
		s.expireLocked(now)
		if len(s.recs) >= s.max {
			return nil, fmt.Errorf("tasks: create: %w: it holds %d tasks, its MemoryOptions.MaxTasks; retry when tasks have expired, give tasks a shorter TTL, or raise the limit", ErrFull, len(s.recs))
		}
		if s.overQuota(rec.Principal) {
			return nil, fmt.Errorf("tasks: create: %w: the task's principal holds %d tasks, the store's MemoryOptions.MaxTasksPerPrincipal; retry when its tasks have expired", ErrFull, s.owned[rec.Principal])
		}
		if s.bytes+size > s.maxBytes {
			return nil, fmt.Errorf("tasks: create: %w: the task's %d bytes of payload would take the store past its MemoryOptions.MaxBytes, %d; retry when tasks have expired, give tasks a shorter TTL, or raise the limit", ErrFull, size, s.maxBytes)
		}
	}
	s.recs[rec.ID] = &memRecord{rec: rec, wake: make(chan struct{})}
	s.bytes += size
	if rec.Principal != "" {
		s.owned[rec.Principal]++
	}
	return rec.Clone(), nil
}

// Get implements Store.
func (s *MemoryStore) Get(ctx context.Context, id, principal string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: get: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.lookupLocked(id, principal)
	if m == nil {
		return nil, fmt.Errorf("tasks: get: %w", ErrNotFound)
	}
	return m.rec.Clone(), nil
}

// lookupLocked returns the stored record of id if principal owns it.
func (s *MemoryStore) lookupLocked(id, principal string) *memRecord {
	m := s.recs[id]
	if m == nil || m.rec.Principal != principal {
		return nil
	}
	return m
}

// Update implements Store. fn runs without the store's lock held; a write
// that lands between the read and the write back makes Update read again.
func (s *MemoryStore) Update(ctx context.Context, id, principal string, fn func(*Record) error) (*Record, error) {
	for range updateAttempts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("tasks: update: %w", err)
		}
		s.mu.Lock()
		m := s.lookupLocked(id, principal)
		if m == nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("tasks: update: %w", ErrNotFound)
		}
		if m.rec.Status.Terminal() {
			st := m.rec.Status
			s.mu.Unlock()
			return nil, fmt.Errorf("tasks: update: task is %s: %w", st, ErrTerminal)
		}
		old := m.rec // never modified: a write replaces it
		next := old.Clone()
		s.mu.Unlock()

		if err := fn(next); err != nil {
			return nil, err
		}
		if err := checkUpdate(old, next); err != nil {
			return nil, err
		}

		s.mu.Lock()
		if s.recs[id] != m {
			s.mu.Unlock()
			return nil, fmt.Errorf("tasks: update: %w", ErrNotFound)
		}
		if m.rec != old {
			s.mu.Unlock()
			continue
		}
		grown := payloadSize(next) - payloadSize(old)
		if grown > 0 && s.bytes+grown > s.maxBytes {
			s.mu.Unlock()
			return nil, fmt.Errorf("tasks: update: %w: %d more bytes of payload would take the store past its MemoryOptions.MaxBytes, %d", ErrFull, grown, s.maxBytes)
		}
		s.bytes += grown
		next.Version = old.Version + 1
		next.UpdatedAt = s.now()
		if next.UpdatedAt.Before(old.UpdatedAt) {
			next.UpdatedAt = old.UpdatedAt
		}
		m.rec = next.Clone()
		close(m.wake)
		m.wake = make(chan struct{})
		s.mu.Unlock()
		return next, nil
	}
	return nil, fmt.Errorf("tasks: update: lost the compare-and-set %d times to other writes: %w", updateAttempts, ErrConflict)
}

// checkUpdate checks what fn left: the identity of the record unchanged
// and a valid record.
func checkUpdate(old, next *Record) error {
	switch {
	case next.ID != old.ID:
		return fmt.Errorf("tasks: update: the update function changed the task id; it may not")
	case next.Principal != old.Principal:
		return fmt.Errorf("tasks: update: the update function changed the principal; it may not")
	case !next.CreatedAt.Equal(old.CreatedAt):
		return fmt.Errorf("tasks: update: the update function changed createdAt from %s to %s; it may not", old.CreatedAt.Format(time.RFC3339Nano), next.CreatedAt.Format(time.RFC3339Nano))
	}
	if err := next.Validate(); err != nil {
		return fmt.Errorf("tasks: update: the update function left an invalid %w", err)
	}
	return nil
}

// Wait implements Store.
func (s *MemoryStore) Wait(ctx context.Context, id, principal string, after uint64) (*Record, error) {
	s.mu.Lock()
	for {
		m := s.lookupLocked(id, principal)
		if m == nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("tasks: wait: %w", ErrNotFound)
		}
		if m.rec.Version > after {
			r := m.rec.Clone()
			s.mu.Unlock()
			return r, nil
		}
		wake := m.wake
		s.waiting++
		s.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			s.mu.Lock()
			s.waiting--
			s.mu.Unlock()
			return nil, fmt.Errorf("tasks: wait: %w", ctx.Err())
		}
		s.mu.Lock()
		s.waiting--
	}
}

// Expire implements Store. The ids come sorted.
func (s *MemoryStore) Expire(ctx context.Context, now time.Time) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: expire: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.expireLocked(now), nil
}

// expireLocked deletes the records expired at now, wakes their waiters and
// returns their ids, sorted.
func (s *MemoryStore) expireLocked(now time.Time) []string {
	var ids []string
	for id, m := range s.recs {
		if expired(m.rec, now) {
			delete(s.recs, id)
			s.bytes -= payloadSize(m.rec)
			if p := m.rec.Principal; p != "" {
				if s.owned[p]--; s.owned[p] <= 0 {
					delete(s.owned, p)
				}
			}
			close(m.wake)
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// expired reports whether r's time to live has run out at now.
func expired(r *Record, now time.Time) bool {
	return r.TTL > 0 && now.After(r.CreatedAt.Add(r.TTL))
}

// overQuota reports whether principal holds as many records as it may.
func (s *MemoryStore) overQuota(principal string) bool {
	return principal != "" && s.maxPerPri > 0 && s.owned[principal] >= s.maxPerPri
}

// payloadSize is the size of the parts of r whose size a client or a tool
// chooses (see MemoryOptions.MaxBytes).
func payloadSize(r *Record) int64 {
	n := len(r.Params) + len(r.Result) + len(r.Error) + len(r.StatusMessage)
	for k, v := range r.Outstanding {
		n += len(k) + len(v)
	}
	for k, v := range r.Answers {
		n += len(k) + len(v)
	}
	for _, k := range r.Issued {
		n += len(k)
	}
	return int64(n)
}

// Bytes returns the bytes of payload the store holds (see
// MemoryOptions.MaxBytes).
func (s *MemoryStore) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// Len returns the number of records the store holds.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recs)
}
