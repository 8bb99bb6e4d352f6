// Command notes-client is the notes client of bench/compare/README.md,
// written with github.com/mcpgen/mcpgen.
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
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
	Limit int    `json:"limit,omitzero"`
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

// user answers the server's questions.
type user struct{ mcp.UnimplementedClient }

func (user) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	if f, ok := p.Value.(*mcp.ElicitRequestFormParams); ok {
		fmt.Println("elicitation:", f.Message)
	}
	return mcp.Accept(map[string]any{"confirm": true})
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
	var t mcp.Transport = mcp.Command(os.Args[1], os.Args[2:]...)
	if strings.HasPrefix(os.Args[1], "http://") || strings.HasPrefix(os.Args[1], "https://") {
		t = mcp.HTTP(os.Args[1], &mcp.HTTPClientOptions{Header: http.Header{"X-Api-Key": {os.Getenv("NOTES_API_KEY")}}})
	}
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{Handler: user{}})
	check(err)
	defer cs.Close()

	added, _, err := mcp.CallTypedTool[NoteID](ctx, cs, "add_note", Note{Title: "groceries", Body: "milk, eggs"})
	check(err)
	fmt.Println("added note", added.ID)
	found, _, err := mcp.CallTypedTool[SearchOut](ctx, cs, "search_notes", SearchIn{Query: "EGG"})
	check(err)
	fmt.Println("search:", found.Notes)
	_, _, err = mcp.CallTypedTool[SearchOut](ctx, cs, "search_notes", SearchIn{Query: "x", Limit: 51})
	fmt.Println("refused:", err)

	uri := "notes://" + strconv.Itoa(added.ID)
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: uri})
	check(err)
	fmt.Println("resource:", res.Text())
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "notes://999"})
	fmt.Println("missing:", err)

	p, err := cs.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "summarize", Arguments: map[string]string{"id": strconv.Itoa(added.ID)}})
	check(err)
	fmt.Printf("prompt: %q\n", p.Text())

	deleted, _, err := mcp.CallTypedTool[DeleteOut](ctx, cs, "delete_note", added)
	check(err)
	fmt.Println("deleted:", deleted.Deleted)
	found, _, err = mcp.CallTypedTool[SearchOut](ctx, cs, "search_notes", SearchIn{Query: "EGG"})
	check(err)
	fmt.Println("search:", found.Notes)
}
