// Command forecast is a small MCP server on stdio: a typed tool (forecast),
// a prompt with a required argument (plan-trip) and a JSON resource
// (weather://cities). It is written against the newest revision,
// 2026-07-28, whose requests it serves statelessly, and it also serves
// clients that begin with initialize, at 2025-11-25 and before (the
// revisions protocol/mcp20260728 links).
//
//	go run ./examples/forecast
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/spf13/pflag"
)

// Args are the forecast tool's arguments: its inputSchema is inferred from
// them, and a call's arguments are checked against it.
type Args struct {
	City string `json:"city" description:"City name"`
	Days int    `json:"days" description:"Days ahead" minimum:"1" maximum:"7" default:"3"`
}

// Forecast is the forecast tool's result, {city, days, summary}: its
// outputSchema is inferred from it, and it is sent as structuredContent.
type Forecast struct {
	Args
	Summary string `json:"summary"`
}

// forecast is the forecast tool: a defaulted, checked Args in, a Forecast
// out.
func forecast(ctx context.Context, a Args) (Forecast, error) {
	return Forecast{Args: a, Summary: "Sunny in " + a.City + "."}, nil
}

func main() {
	fs := pflag.NewFlagSet("forecast", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(os.Args[1:]); err != nil || fs.NArg() > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintf(os.Stderr, "forecast: %v; see --help\n", err)
		os.Exit(2)
	}
	if *help {
		fmt.Printf("usage: forecast\n\nAn MCP server on stdio: the typed tool forecast, the prompt plan-trip and\nthe resource weather://cities. Point an MCP client at it.\n\nFlags:\n%s", fs.FlagUsages())
		return
	}
	if err := newServer().ServeStdio(context.Background()); err != nil {
		log.Fatal(err)
	}
}

// newServer returns the forecast server. What it offers is registered at
// start-up, from code, so the Must forms suit: they panic on a mistake
// there, which the first run shows.
func newServer() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "forecast", Version: "1.0.0"})
	mcp.MustAddTypedTool(srv, mcp.NewTool("forecast", "Weather forecast for a city"), forecast)
	srv.MustAddPrompt(mcp.NewPrompt("plan-trip", "Plan a trip", mcp.RequiredArgument("city", "Where to")), func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return mcp.PromptText(mcp.RoleUser, "Plan a trip to "+p.Arguments["city"]+"."), nil
	})
	srv.MustAddResource(mcp.NewResource("weather://cities", "cities", "application/json"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return mcp.ResourceText(p.URI, "application/json", `["Oslo","Lima","Perth"]`), nil
	})
	return srv
}
