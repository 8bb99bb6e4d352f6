// ts-sse-server.mjs: an MCP server on the official TypeScript SDK v1
// (@modelcontextprotocol/sdk) over its HTTP+SSE transport of 2024-11-05
// (SSEServerTransport), for this project's client to be tested against.
//
//   node ts-sse-server.mjs
//
// It listens on 127.0.0.1, on a port the system chooses, and prints one
// JSON line on stdout once listening: {"url":"http://127.0.0.1:PORT/sse"}.
// GET /sse opens a session (one SDK Server per stream) whose endpoint event
// names /messages?sessionId=...; POST /messages delivers a message to it.
// Any other method on /sse is 405 and any other path 404, as on a server
// that knows nothing of Streamable HTTP: a client that POSTs initialize to
// /sse first falls back to the GET (the specification's backwards
// compatibility recipe,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).
// It offers one tool, echo
// {text}, which returns the text. SIGINT or SIGTERM stops it; diagnostics
// go to stderr.
import http from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const transports = new Map(); // sessionId → SSEServerTransport

function newServer() {
  const server = new Server({ name: "mcpgen-interop-ts-sse-server", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "echo",
        description: "Returns its text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    if (req.params.name !== "echo") {
      return { content: [{ type: "text", text: `no tool ${req.params.name}` }], isError: true };
    }
    return { content: [{ type: "text", text: String(req.params.arguments?.text ?? "") }] };
  });
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  try {
    if (url.pathname === "/sse") {
      if (req.method !== "GET") {
        res.writeHead(405, { Allow: "GET", "Content-Type": "text/plain" }).end("GET opens the SSE stream\n");
        return;
      }
      const transport = new SSEServerTransport("/messages", res);
      transports.set(transport.sessionId, transport);
      transport.onclose = () => transports.delete(transport.sessionId);
      await newServer().connect(transport); // starts the stream: the endpoint event
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = transports.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        res.writeHead(404, { "Content-Type": "text/plain" }).end("no such session\n");
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n");
  } catch (err) {
    process.stderr.write(`ts-sse-server: ${err?.stack || err}\n`);
    if (!res.headersSent) {
      res.writeHead(500).end();
    }
  }
});

httpServer.listen(0, "127.0.0.1", () => {
  const { port } = httpServer.address();
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}/sse` }) + "\n");
});

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    for (const t of transports.values()) {
      t.close().catch(() => {});
    }
    httpServer.close();
    httpServer.closeAllConnections?.();
    process.exit(0);
  });
}
