// Command notes-server is the notes server of bench/compare/README.md,
// written with github.com/mcpgen/mcpgen following its docs.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
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
	Limit int    `json:"limit,omitempty" minimum:"1" maximum:"50" default:"10"`
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

type PromptIn struct {
	ID string `json:"id"`
}

func addNote(_ context.Context, in Note) (NoteID, error) {
	mu.Lock()
	defer mu.Unlock()
	notes[nextID] = in
	nextID++
	return NoteID{ID: nextID - 1}, nil
}

func searchNotes(_ context.Context, in SearchIn) (SearchOut, error) {
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

func deleteNote(ctx context.Context, in NoteID) (DeleteOut, error) {
	n, ok := lookup(strconv.Itoa(in.ID))
	if !ok {
		return DeleteOut{}, fmt.Errorf("note %d not found", in.ID)
	}
	res, err := mcp.Elicit(ctx, "confirm", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message: fmt.Sprintf("Delete note %d %q?", in.ID, n.Title),
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Required: []string{"confirm"},
			Properties: map[string]mcp.PrimitiveSchemaDefinition{"confirm": {Value: &mcp.BooleanSchema{}}}},
	}})
	if err != nil {
		return DeleteOut{}, err
	}
	if res.Action != "accept" || res.Content["confirm"].Value != mcp.ElicitResultContentValueBoolean(true) {
		return DeleteOut{}, nil
	}
	mu.Lock()
	defer mu.Unlock()
	delete(notes, in.ID)
	return DeleteOut{Deleted: true}, nil
}

func lookup(id string) (Note, bool) {
	i, err := strconv.Atoi(id)
	mu.Lock()
	defer mu.Unlock()
	n, ok := notes[i]
	return n, ok && err == nil
}

func readNote(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	n, ok := lookup(mcp.TemplateVars(ctx).Get("id"))
	if !ok {
		return nil, mcp.ResourceNotFound(p.URI)
	}
	return mcp.ResourceText(p.URI, "text/plain", n.Body), nil
}

func summarize(_ context.Context, in PromptIn) (*mcp.GetPromptResult, error) {
	n, ok := lookup(in.ID)
	if !ok {
		return nil, mcp.InvalidParams("note %q not found", in.ID)
	}
	return mcp.PromptText("user", "Summarize this note.\n\n"+n.Title+"\n\n"+n.Body), nil
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	flag.Parse()

	s := mcp.NewServer(mcp.Implementation{Name: "notes-server", Version: "v0.1.0"},
		mcp.WithReceiveHook(func(ctx context.Context, m *mcp.Message) error {
			log.Println("method:", m.Method)
			return nil
		}))
	mcp.MustAddTypedTool(s, mcp.NewTool("add_note", "Add a note."), addNote)
	mcp.MustAddTypedTool(s, mcp.NewTool("search_notes", "Find notes that contain the query."), searchNotes)
	mcp.MustAddTypedTool(s, mcp.NewTool("delete_note", "Delete a note, once the user confirms."), deleteNote)
	s.MustAddResourceTemplate(mcp.NewResourceTemplate("notes://{id}", "note", "text/plain"), readNote)
	mcp.MustAddTypedPrompt(s, mcp.NewPrompt("summarize", ""), summarize)

	if *addr == "" {
		if err := s.ServeStdio(context.Background()); err != nil {
			log.Fatal(err)
		}
		return
	}
	key := os.Getenv("NOTES_API_KEY")
	if key == "" {
		log.Fatal("--http needs NOTES_API_KEY")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on http://%s/mcp", ln.Addr())
	log.Fatal(http.Serve(ln, s.HTTPHandler(mcp.HTTPOptions{Gate: mcp.RequireHeader("X-API-Key", key)})))
}
