package reqstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// DefaultKeyFileInterval is how often [KeyFile.Watch] reads the file again
// when [KeyFileOptions].Interval is not set.
const DefaultKeyFileInterval = time.Minute

// minKeyFileInterval is the shortest interval of Watch, so that a mistaken
// setting does not read the file in a busy loop.
const minKeyFileInterval = time.Second

// maxKeyFileSize bounds the key file: a few keys take a few hundred bytes.
const maxKeyFileSize = 64 << 10

// KeyFileOptions configure [OpenKeyFile]. The zero value suits Sealers with
// the default TTL that use time.Now.
type KeyFileOptions struct {
	// TTL is the TTL of the Sealers that use the ring: how long a state
	// opens. DefaultTTL if zero or negative.
	TTL time.Duration
	// Interval is how often Watch reads the file again, and so the longest
	// time an instance takes to see a change: DefaultKeyFileInterval if
	// zero or negative, and at least a second.
	Interval time.Duration
	// Now returns the current time; time.Now if nil. It dates the moment a
	// key leaves the file, and a Sealer compares the end of that key's
	// grace with its own Now: the two must be the same clock (tests set
	// both).
	Now func() time.Time
}

// KeyFile is a [Ring] kept in step with a key file that the operator
// writes and every server instance reads, so that all of them seal and
// open with the same keys and a rotation written once reaches them all.
//
// The file holds one key per line, "id:secret" as [FormatKeys] writes and
// `mcpgen keygen` prints (a line may also hold a comma-separated list, the
// text of [ParseKeys]); blank lines and lines that begin with '#' are
// ignored. The first key is the primary, which seals; every key opens.
// The file must not be readable by other users (mode 0600, 0400 or 0440,
// say): [OpenKeyFile] and [KeyFile.Reload] refuse one that is.
//
// A key that leaves the file keeps opening the states it sealed for one
// state lifetime, TTL plus Interval after the reload that saw it go (the
// slowest instance may seal with it until its own next reload), and then
// stops: states it sealed fail with [ErrUnknownKey] and the request starts
// over. A rotation is therefore two writes of the file:
//
//  1. add the new key on the second line, and wait for every instance to
//     read it (Interval, or a Reload on each);
//  2. put the new key first and remove the old one.
//
// The ring dates a key's departure by Now (see [KeyFileOptions]); a Sealer
// checks it with its own Now when it opens a state. A process that starts
// after step 2 never had the old key, and starts over the few requests in
// flight under it, unless the old key stays in the file for a TTL.
//
// A KeyFile is safe for concurrent use. A Reload that fails (the file
// unreadable, malformed or readable by others) changes nothing: the ring
// keeps the keys it has.
type KeyFile struct {
	path     string
	ttl      time.Duration
	interval time.Duration
	now      func() time.Time
	ring     *Ring
}

// OpenKeyFile reads the key file at path and returns it with its ring. It
// fails if the file cannot be read, is readable by other users, is larger
// than 64 KiB, has no key or a malformed line (the error names the line and
// never quotes a secret), or names a key ID twice.
func OpenKeyFile(path string, opts KeyFileOptions) (*KeyFile, error) {
	f := &KeyFile{path: path, ttl: opts.TTL, interval: opts.Interval, now: opts.Now, ring: &Ring{}}
	if f.ttl <= 0 {
		f.ttl = DefaultTTL
	}
	if f.interval <= 0 {
		f.interval = DefaultKeyFileInterval
	}
	f.interval = max(f.interval, minKeyFileInterval)
	if f.now == nil {
		f.now = time.Now
	}
	if err := f.Reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// Ring returns the ring the file's keys are in: give it to a [Sealer] (with
// the TTL of [KeyFileOptions]).
func (f *KeyFile) Ring() *Ring { return f.ring }

// Reload reads the file again and makes its keys the ring's, its first key
// the primary. A key of the ring that is no longer in the file keeps
// opening until its grace ends (see [KeyFile]), and is dropped by the first
// Reload after that. A key ID that is in the ring with another secret,
// and still opens, is refused: a new key needs a new ID. On error the
// ring is unchanged.
func (f *KeyFile) Reload() error {
	keys, err := readKeyFile(f.path)
	if err != nil {
		return err
	}
	r := f.ring
	r.mu.Lock()
	defer r.mu.Unlock()
	now := f.now()
	old := r.set.Load()
	if old == nil {
		old = &keySet{}
	}
	next := &keySet{keys: make([]ringKey, 0, len(keys)+len(old.keys))}
	inFile := make(map[string]bool, len(keys))
	for _, k := range keys {
		inFile[k.ID] = true
		if rk := old.find(k.ID); rk != nil && rk.opens(now) {
			if rk.key.Secret != k.Secret {
				return fmt.Errorf("reqstate: key file %s: key ID %q is in use with another secret: give a new key a new ID", f.path, k.ID)
			}
			kept := *rk
			kept.until = time.Time{}
			next.keys = append(next.keys, kept)
			continue
		}
		rk, err := newRingKey(k)
		if err != nil {
			return fmt.Errorf("reqstate: key file %s: %w", f.path, err)
		}
		next.keys = append(next.keys, rk)
	}
	for _, rk := range old.keys {
		switch {
		case inFile[rk.key.ID] || !rk.opens(now):
		case rk.until.IsZero():
			rk.until = now.Add(f.ttl + f.interval)
			next.keys = append(next.keys, rk)
		default:
			next.keys = append(next.keys, rk)
		}
	}
	r.set.Store(next)
	return nil
}

// Watch calls Reload every Interval until ctx ends, and passes each error
// to report (if not nil) to log or count: the ring keeps its keys
// meanwhile, and the next read that succeeds applies the file. Run it in a
// goroutine of its own; it returns when ctx ends. The errors never quote a
// secret.
func (f *KeyFile) Watch(ctx context.Context, report func(error)) {
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := f.Reload(); err != nil && report != nil {
				report(err)
			}
		}
	}
}

// readKeyFile reads and parses the key file at path, refusing one that
// other users can read.
func readKeyFile(path string) ([]Key, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reqstate: key file: %w", err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("reqstate: key file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("reqstate: key file %s is not a regular file (mode %s)", path, fi.Mode())
	}
	// Windows has no such permission bits; its ACLs are the operator's.
	if perm := fi.Mode().Perm(); perm&0o004 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("reqstate: key file %s can be read by other users (mode %04o): it holds secrets; make it readable by the server's user or group only (chmod 600, or a secret volume with mode 0400 or 0440)", path, perm)
	}
	data, err := io.ReadAll(io.LimitReader(file, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reqstate: key file: %w", err)
	}
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("reqstate: key file %s is larger than %d bytes: it should hold a few lines id:secret", path, maxKeyFileSize)
	}
	keys, err := parseKeyFile(data)
	if err != nil {
		return nil, fmt.Errorf("reqstate: key file %s: %w", path, err)
	}
	return keys, nil
}

// parseKeyFile reads the text of a key file: lines of ParseKeys text,
// blank lines and lines that begin with '#' (after spaces) ignored. Errors
// name the line.
func parseKeyFile(data []byte) ([]Key, error) {
	var keys []Key
	seen := make(map[string]bool)
	for i, line := range bytes.Split(data, []byte("\n")) {
		text := strings.TrimSpace(string(line))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		k, err := parseKeys(text, seen)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		keys = append(keys, k...)
	}
	if len(keys) == 0 {
		return nil, errors.New("no key in the file: write a line id:secret (mcpgen keygen prints one)")
	}
	return keys, nil
}
