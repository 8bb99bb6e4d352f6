package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// The floors: the least a JSON-RPC round trip over each transport can cost
// without any MCP library. The client sends a tools/call line with a fresh
// id; the server finds the id by scanning bytes and answers a fixed
// CallToolResult carrying that id; the client matches the answer by id (so
// that 8 callers can share one connection, as they do with the SDKs).

const (
	floorReqPrefix  = `{"jsonrpc":"2.0","id":`
	floorReqSuffix  = `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`
	floorRespSuffix = `,"result":{"content":[{"type":"text","text":"hello, world"}]}}`
)

// floorID returns the id of a message written by floorRequest or
// floorResponse: the digits after floorReqPrefix.
func floorID(msg []byte) ([]byte, error) {
	if !bytes.HasPrefix(msg, []byte(floorReqPrefix)) {
		return nil, fmt.Errorf("floor: unexpected message %q", msg)
	}
	rest := msg[len(floorReqPrefix):]
	i := bytes.IndexByte(rest, ',')
	if i < 0 {
		return nil, fmt.Errorf("floor: no id in %q", msg)
	}
	return rest[:i], nil
}

func floorRequest(buf []byte, id int64) []byte {
	buf = append(buf, floorReqPrefix...)
	buf = strconv.AppendInt(buf, id, 10)
	return append(buf, floorReqSuffix...)
}

func floorResponse(buf, id []byte) []byte {
	buf = append(buf, floorReqPrefix...)
	buf = append(buf, id...)
	return append(buf, floorRespSuffix...)
}

// floorStdio is a bare newline-delimited JSON-RPC echo over two os.Pipe
// pairs.
func floorStdio(b *testing.B) (caller, func()) {
	sr, sw, cr, cw := osPipes(b)
	// Server: one line in, one line out.
	go func() {
		br := bufio.NewReaderSize(sr, 64<<10)
		var out []byte
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				sw.Close()
				return
			}
			id, err := floorID(line)
			if err != nil {
				sw.Close()
				return
			}
			out = append(floorResponse(out[:0], id), '\n')
			if _, err := sw.Write(out); err != nil {
				return
			}
		}
	}()
	// Client: a reader goroutine hands each answer to the caller waiting
	// for its id.
	var (
		mu      sync.Mutex
		waiting = map[int64]chan struct{}{}
		wmu     sync.Mutex
		nextID  atomic.Int64
		readErr = make(chan error, 1)
	)
	go func() {
		br := bufio.NewReaderSize(cr, 64<<10)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				readErr <- err
				return
			}
			raw, err := floorID(line)
			if err != nil || !bytes.Contains(line, []byte(echoText)) {
				readErr <- fmt.Errorf("floor: bad answer %q", line)
				return
			}
			id, _ := strconv.ParseInt(string(raw), 10, 64)
			mu.Lock()
			ch := waiting[id]
			delete(waiting, id)
			mu.Unlock()
			if ch != nil {
				ch <- struct{}{}
			}
		}
	}()
	bufs := sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}
	call := func(ctx context.Context) error {
		id := nextID.Add(1)
		ch := make(chan struct{}, 1)
		mu.Lock()
		waiting[id] = ch
		mu.Unlock()
		bp := bufs.Get().(*[]byte)
		msg := append(floorRequest((*bp)[:0], id), '\n')
		wmu.Lock()
		_, err := cw.Write(msg)
		wmu.Unlock()
		*bp = msg
		bufs.Put(bp)
		if err != nil {
			return err
		}
		select {
		case <-ch:
			return nil
		case err := <-readErr:
			return err
		}
	}
	return call, func() {
		cw.Close()
		cr.Close()
		sr.Close()
	}
}

// floorHandler is a bare net/http handler: it reads the body, finds the id
// by scanning bytes, and writes answer(body, id) as JSON.
func floorHandler(answer func(body, id []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id, err := floorID(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer(body, id))
	})
}

// floorHTTP is a bare net/http loopback POST: the handler reads the body
// and answers the fixed result with the request's id.
func floorHTTP(b *testing.B) (caller, func()) {
	h := floorHandler(func(body, id []byte) []byte { return floorResponse(make([]byte, 0, 128), id) })
	url, stop := listen(b, h)
	hc := httpClient()
	var nextID atomic.Int64
	call := func(ctx context.Context) error {
		body := floorRequest(make([]byte, 0, 128), nextID.Add(1))
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Contains(out, []byte(echoText)) {
			return errors.New("floor: bad answer " + resp.Status + " " + string(out))
		}
		return nil
	}
	return call, func() {
		hc.CloseIdleConnections()
		stop()
	}
}
