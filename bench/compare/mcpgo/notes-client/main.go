// Command notes-client is the notes client of bench/compare/README.md,
// written with github.com/mark3labs/mcp-go following its docs.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
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
func call[Out any](ctx context.Context, c *client.Client, name string, in any) (Out, error) {
	var out Out
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: in}})
	if err != nil {
		return out, err
	}
	if res.IsError {
		if len(res.Content) > 0 {
			return out, errors.New(mcp.GetTextFromContent(res.Content[0]))
		}
		return out, fmt.Errorf("%s failed", name)
	}
	return out, json.Unmarshal(res.RawStructuredContent, &out)
}

// confirm answers every elicitation by accepting with confirm=true.
type confirm struct{}

func (confirm) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	fmt.Println("elicitation:", req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"confirm": true},
	}}, nil
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
	var t transport.Interface = transport.NewStdio(os.Args[1], nil, os.Args[2:]...)
	if strings.HasPrefix(os.Args[1], "http://") || strings.HasPrefix(os.Args[1], "https://") {
		var err error
		t, err = transport.NewStreamableHTTP(os.Args[1],
			transport.WithHTTPHeaders(map[string]string{"X-API-Key": os.Getenv("NOTES_API_KEY")}))
		check(err)
	}
	c := client.NewClient(t, client.WithElicitationHandler(confirm{}))
	check(c.Start(ctx))
	defer c.Close()
	_, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "notes-client", Version: "v0.1.0"},
	}})
	check(err)

	added, err := call[NoteID](ctx, c, "add_note", Note{Title: "groceries", Body: "milk, eggs"})
	check(err)
	fmt.Println("added note", added.ID)
	found, err := call[SearchOut](ctx, c, "search_notes", SearchIn{Query: "EGG"})
	check(err)
	fmt.Println("search:", found.Notes)
	_, err = call[SearchOut](ctx, c, "search_notes", SearchIn{Query: "x", Limit: 51})
	fmt.Println("refused:", err)

	uri := "notes://" + strconv.Itoa(added.ID)
	res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	check(err)
	fmt.Println("resource:", res.Contents[0].(mcp.TextResourceContents).Text)
	_, err = c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "notes://999"}})
	fmt.Println("missing:", err)

	p, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{
		Name: "summarize", Arguments: map[string]string{"id": strconv.Itoa(added.ID)},
	}})
	check(err)
	fmt.Printf("prompt: %q\n", mcp.GetTextFromContent(p.Messages[0].Content))

	deleted, err := call[DeleteOut](ctx, c, "delete_note", added)
	check(err)
	fmt.Println("deleted:", deleted.Deleted)
	found, err = call[SearchOut](ctx, c, "search_notes", SearchIn{Query: "EGG"})
	check(err)
	fmt.Println("search:", found.Notes)
}
