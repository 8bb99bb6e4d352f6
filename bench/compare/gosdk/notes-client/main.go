// Command notes-client is the notes client of bench/compare/README.md,
// written with github.com/modelcontextprotocol/go-sdk following its docs.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type Note struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

type NoteID struct {
	ID int `json:"id"`
}

type SearchIn struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

type SearchOut struct {
	Notes []struct {
		ID    int    `json:"id"`
		Title string `json:"title"`
	} `json:"notes"`
}

type DeleteOut struct {
	Deleted bool `json:"deleted"`
}

// call calls a tool with in as its arguments and decodes its structured
// content into Out.
func call[Out any](ctx context.Context, cs *mcp.ClientSession, name string, in any) (Out, error) {
	var out Out
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: in})
	if err != nil {
		return out, err
	}
	if res.IsError {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				return out, errors.New(t.Text)
			}
		}
		return out, fmt.Errorf("%s failed", name)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return out, err
	}
	return out, json.Unmarshal(b, &out)
}

// apiKey adds the X-API-Key header to every HTTP request.
type apiKey struct{}

func (apiKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-API-Key", os.Getenv("NOTES_API_KEY"))
	return http.DefaultTransport.RoundTrip(r)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: notes-client URL | notes-client COMMAND [ARG...]")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "notes-client", Version: "v0.1.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("elicitation:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	var t mcp.Transport = &mcp.CommandTransport{Command: exec.Command(os.Args[1], os.Args[2:]...)}
	if strings.HasPrefix(os.Args[1], "http://") || strings.HasPrefix(os.Args[1], "https://") {
		t = &mcp.StreamableClientTransport{Endpoint: os.Args[1], HTTPClient: &http.Client{Transport: apiKey{}}}
	}
	cs, err := c.Connect(ctx, t, nil)
	check(err)
	defer cs.Close()

	added, err := call[NoteID](ctx, cs, "add_note", Note{Title: "groceries", Body: "milk, eggs"})
	check(err)
	fmt.Println("added note", added.ID)
	found, err := call[SearchOut](ctx, cs, "search_notes", SearchIn{Query: "EGG"})
	check(err)
	fmt.Println("search:", found.Notes)
	_, err = call[SearchOut](ctx, cs, "search_notes", SearchIn{Query: "x", Limit: 51})
	fmt.Println("refused:", err)

	uri := "notes://" + strconv.Itoa(added.ID)
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	check(err)
	fmt.Println("resource:", res.Contents[0].Text)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://999"})
	fmt.Println("missing:", err)

	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"id": strconv.Itoa(added.ID)}})
	check(err)
	fmt.Printf("prompt: %q\n", p.Messages[0].Content.(*mcp.TextContent).Text)

	deleted, err := call[DeleteOut](ctx, cs, "delete_note", added)
	check(err)
	fmt.Println("deleted:", deleted.Deleted)
	found, err = call[SearchOut](ctx, cs, "search_notes", SearchIn{Query: "EGG"})
	check(err)
	fmt.Println("search:", found.Notes)
}
