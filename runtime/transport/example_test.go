package transport_test

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

func ExamplePipe() {
	ctx := context.Background()
	client, server := transport.Pipe()

	// The server echoes every message until the client closes the pipe.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			msg, err := server.Read(ctx)
			if err == io.EOF {
				return
			}
			if err != nil {
				fmt.Println("server:", err)
				return
			}
			if err := server.Write(ctx, msg); err != nil {
				return
			}
		}
	}()

	_ = client.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	reply, _ := client.Read(ctx)
	fmt.Println(string(reply))

	client.Close()
	<-done
	_, err := client.Read(ctx)
	fmt.Println(err)
	// Output:
	// {"jsonrpc":"2.0","id":1,"method":"ping"}
	// EOF
}
