// Command notes-server is the notes server of bench/compare/README.md,
// written with github.com/mark3labs/mcp-go following its docs.
package main

import (
	"context"
	"crypto/subtle"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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

func addNote(_ context.Context, _ mcp.CallToolRequest, in Note) (NoteID, error) {
	mu.Lock()
	defer mu.Unlock()
	notes[nextID] = in
	nextID++
	return NoteID{ID: nextID - 1}, nil
}

func searchNotes(_ context.Context, _ mcp.CallToolRequest, in SearchIn) (SearchOut, error) {
	if in.Limit == 0 {
		in.Limit = 10 // mcp-go validates arguments but does not apply schema defaults
	}
	mu.Lock()
	defer mu.Unlock()
	out := SearchOut{Notes: []Hit{}}
	q := strings.ToLower(in.Query)
	for id := 1; id < nextID && len(out.Notes) < in.Limit; id++ {
		if n, ok := notes[id]; ok && strings.Contains(strings.ToLower(n.Title+"\n"+n.Body), q) {
			out.Notes = append(out.Notes, Hit{id, n.Title})
		}
	}
	return out, nil
}

func deleteNote(_ context.Context, req mcp.CallToolRequest, in NoteID) (*mcp.CallToolResult, error) {
	n, ok := lookup(strconv.Itoa(in.ID))
	if !ok {
		return mcp.NewToolResultError(fmt.Sprintf("note %d not found", in.ID)), nil
	}
	answer := server.ElicitationResponse(req.Params.InputResponses, "confirm")
	if answer == nil {
		return server.NewInputRequestBuilder("").Elicit("confirm", mcp.ElicitationParams{
			Message: fmt.Sprintf("Delete note %d %q?", in.ID, n.Title),
			RequestedSchema: map[string]any{"type": "object", "required": []string{"confirm"},
				"properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}},
		}).ToolResult(), nil
	}
	content, _ := answer.Content.(map[string]any)
	if answer.Action != mcp.ElicitationResponseActionAccept || content["confirm"] != true {
		return mcp.NewToolResultStructuredOnly(DeleteOut{}), nil
	}
	mu.Lock()
	defer mu.Unlock()
	delete(notes, in.ID)
	return mcp.NewToolResultStructuredOnly(DeleteOut{Deleted: true}), nil
}

func lookup(id string) (Note, bool) {
	i, err := strconv.Atoi(id)
	mu.Lock()
	defer mu.Unlock()
	n, ok := notes[i]
	return n, ok && err == nil
}

// readNote reports an unknown note with a plain error, which mcp-go sends as
// -32603: a resource handler has no way to send "resource not found".
func readNote(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	n, ok := lookup(strings.TrimPrefix(req.Params.URI, "notes://"))
	if !ok {
		return nil, fmt.Errorf("note %s not found", req.Params.URI)
	}
	return []mcp.ResourceContents{
		mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: n.Body},
	}, nil
}

func summarize(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	n, ok := lookup(req.Params.Arguments["id"])
	if !ok {
		return nil, fmt.Errorf("note %q not found", req.Params.Arguments["id"])
	}
	return mcp.NewGetPromptResult("", []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Summarize this note.\n\n"+n.Title+"\n\n"+n.Body)),
	}), nil
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	flag.Parse()

	hooks := &server.Hooks{}
	hooks.AddBeforeAny(func(_ context.Context, _ any, method mcp.MCPMethod, _ any) {
		log.Println("method:", method)
	})
	s := server.NewMCPServer("notes-server", "v0.1.0", server.WithHooks(hooks), server.WithInputSchemaValidation())
	s.AddTool(mcp.NewTool("add_note", mcp.WithDescription("Add a note."),
		mcp.WithInputSchema[Note](), mcp.WithOutputSchema[NoteID]()), mcp.NewStructuredToolHandler(addNote))
	s.AddTool(mcp.NewTool("search_notes", mcp.WithDescription("Find notes that contain the query."),
		mcp.WithString("query", mcp.Required()),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(50), mcp.DefaultNumber(10)),
		mcp.WithOutputSchema[SearchOut]()), mcp.NewStructuredToolHandler(searchNotes))
	s.AddTool(mcp.NewTool("delete_note", mcp.WithDescription("Delete a note, once the user confirms."),
		mcp.WithInputSchema[NoteID](), mcp.WithOutputSchema[DeleteOut]()), mcp.NewTypedToolHandler(deleteNote))
	s.AddResourceTemplate(mcp.NewResourceTemplate("notes://{id}", "note", mcp.WithTemplateMIMEType("text/plain")), readNote)
	s.AddPrompt(mcp.NewPrompt("summarize", mcp.WithArgument("id", mcp.RequiredArgument())), summarize)

	if *addr == "" {
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	key := os.Getenv("NOTES_API_KEY")
	if key == "" {
		log.Fatal("--http needs NOTES_API_KEY")
	}
	h := server.NewStreamableHTTPServer(s)
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
