// Command notes-server is the notes server of bench/compare/README.md,
// written with github.com/modelcontextprotocol/go-sdk following its docs.
package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	mu     sync.Mutex
	notes  = map[int]Note{}
	nextID = 1
)

// Note is a note, and the arguments of add_note.
type Note struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// NoteID is the result of add_note and the arguments of delete_note.
type NoteID struct {
	ID int `json:"id"`
}

type SearchIn struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

type Hit struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

type SearchOut struct {
	Notes []Hit `json:"notes"`
}

type DeleteOut struct {
	Deleted bool `json:"deleted"`
}

func addNote(_ context.Context, _ *mcp.CallToolRequest, in Note) (*mcp.CallToolResult, NoteID, error) {
	mu.Lock()
	defer mu.Unlock()
	notes[nextID] = in
	nextID++
	return nil, NoteID{ID: nextID - 1}, nil
}

func searchNotes(_ context.Context, _ *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, SearchOut, error) {
	mu.Lock()
	defer mu.Unlock()
	out := SearchOut{Notes: []Hit{}}
	q := strings.ToLower(in.Query)
	for id := 1; id < nextID && len(out.Notes) < in.Limit; id++ {
		if n, ok := notes[id]; ok && strings.Contains(strings.ToLower(n.Title+"\n"+n.Body), q) {
			out.Notes = append(out.Notes, Hit{id, n.Title})
		}
	}
	return nil, out, nil
}

// searchSchema is the schema inferred from SearchIn, with the bounds and
// default of limit, which struct tags cannot express in go-sdk.
func searchSchema() *jsonschema.Schema {
	in, err := jsonschema.For[SearchIn](nil)
	if err != nil {
		log.Fatal(err)
	}
	in.Properties["limit"].Minimum = jsonschema.Ptr(1.0)
	in.Properties["limit"].Maximum = jsonschema.Ptr(50.0)
	in.Properties["limit"].Default = json.RawMessage("10")
	return in
}

func deleteNote(_ context.Context, req *mcp.CallToolRequest, in NoteID) (*mcp.CallToolResult, DeleteOut, error) {
	n, ok := lookup(strconv.Itoa(in.ID))
	if !ok {
		return nil, DeleteOut{}, fmt.Errorf("note %d not found", in.ID)
	}
	answer, _ := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
	if answer == nil {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
			Message: fmt.Sprintf("Delete note %d %q?", in.ID, n.Title),
			RequestedSchema: &jsonschema.Schema{Type: "object", Required: []string{"confirm"},
				Properties: map[string]*jsonschema.Schema{"confirm": {Type: "boolean"}}},
		}}}, DeleteOut{}, nil
	}
	if answer.Action != "accept" || answer.Content["confirm"] != true {
		return nil, DeleteOut{}, nil
	}
	mu.Lock()
	defer mu.Unlock()
	delete(notes, in.ID)
	return nil, DeleteOut{Deleted: true}, nil
}

func lookup(id string) (Note, bool) {
	i, err := strconv.Atoi(id)
	mu.Lock()
	defer mu.Unlock()
	n, ok := notes[i]
	return n, ok && err == nil
}

func readNote(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	n, ok := lookup(strings.TrimPrefix(req.Params.URI, "notes://"))
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: req.Params.URI, MIMEType: "text/plain", Text: n.Body},
	}}, nil
}

func summarize(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	n, ok := lookup(req.Params.Arguments["id"])
	if !ok {
		return nil, fmt.Errorf("note %q not found", req.Params.Arguments["id"])
	}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
		{Role: "user", Content: &mcp.TextContent{Text: "Summarize this note.\n\n" + n.Title + "\n\n" + n.Body}},
	}}, nil
}

func logMethods(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		log.Println("method:", method)
		return next(ctx, method, req)
	}
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	flag.Parse()

	s := mcp.NewServer(&mcp.Implementation{Name: "notes-server", Version: "v0.1.0"}, nil)
	s.AddReceivingMiddleware(logMethods)
	mcp.AddTool(s, &mcp.Tool{Name: "add_note", Description: "Add a note."}, addNote)
	mcp.AddTool(s, &mcp.Tool{Name: "search_notes", Description: "Find notes that contain the query.",
		InputSchema: searchSchema()}, searchNotes)
	mcp.AddTool(s, &mcp.Tool{Name: "delete_note", Description: "Delete a note, once the user confirms."}, deleteNote)
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "note", URITemplate: "notes://{id}", MIMEType: "text/plain"}, readNote)
	s.AddPrompt(&mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "id", Required: true}}}, summarize)

	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	key := os.Getenv("NOTES_API_KEY")
	if key == "" {
		log.Fatal("--http needs NOTES_API_KEY")
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on http://%s/mcp", ln.Addr())
	log.Fatal(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-API-Key")), []byte(key)) != 1 {
			http.Error(w, "missing or wrong X-API-Key", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})))
}
