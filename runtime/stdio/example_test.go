package stdio_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/stdio"
)

func ExampleNew() {
	ctx := context.Background()
	// A server would use stdio.New(os.Stdin, os.Stdout). Here the input is a
	// string, and os.Stdout is wrapped so that Close leaves it open.
	in := strings.NewReader("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n" +
		"\n" +
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
	t := stdio.New(in, struct{ io.Writer }{os.Stdout})
	defer t.Close()

	for {
		msg, err := t.Read(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("read:", err)
			return
		}
		fmt.Printf("read %s\n", msg)
	}
	if err := t.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err != nil {
		fmt.Println("write:", err)
	}
	err := t.Write(ctx, []byte("{\n}"))
	fmt.Println(err != nil)
	// Output:
	// read {"jsonrpc":"2.0","id":1,"method":"ping"}
	// read {"jsonrpc":"2.0","method":"notifications/initialized"}
	// {"jsonrpc":"2.0","id":1,"result":{}}
	// true
}

func ExampleCommand() {
	ctx := context.Background()
	p, err := stdio.Command(ctx, exec.Command("my-mcp-server", "--stdio"),
		stdio.WithGrace(2*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Close: stdin closed, then SIGTERM, then SIGKILL (L-14).
	defer p.Close()

	if err := p.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		fmt.Println(err)
		return
	}
	reply, err := p.Read(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", reply)
}

// Every stdio transport runs over a pipe: it has no address and no session
// id (see transport.Info).
func ExampleTransport_Describe() {
	t := stdio.New(strings.NewReader(""), io.Discard)
	defer t.Close()
	fmt.Printf("%+v\n", t.Describe())
	// Output: {Network:pipe Protocol: ProtocolVersion: Address: Port:0 SessionID:}
}
