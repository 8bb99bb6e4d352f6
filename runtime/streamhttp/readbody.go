package streamhttp

import "io"

// maxPresize bounds the buffer readBody makes from a declared length, so
// that a length a peer merely claims cannot make it allocate much.
const maxPresize = 64 << 10

// readBody is io.ReadAll of a body that declares its length n (-1 when it
// does not): a body no longer than it declares is read into one buffer of
// that size, where io.ReadAll starts small and copies. A body that is
// longer, or no length, or one above maxPresize, grows the buffer as
// io.ReadAll does; r's own limits (http.MaxBytesReader, io.LimitReader)
// apply either way.
func readBody(r io.Reader, n int64) ([]byte, error) {
	if n <= 0 || n > maxPresize {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, n+1) // +1: the read that finds EOF needs room
	for {
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than declared: grow
		}
	}
}
