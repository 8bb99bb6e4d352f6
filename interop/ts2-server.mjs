// ts2-server.mjs: an MCP server built on the TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0), for this project's client to be
// tested against. It serves both eras: 2026-07-28 (stateless, per-request
// _meta) and the 2025 initialize era, the way the SDK's entries do it.
//
//   node ts2-server.mjs                 Streamable HTTP on 127.0.0.1, a free port
//   node ts2-server.mjs --port 8080     ... on that port
//   node ts2-server.mjs --stdio         stdio
//
// Over HTTP it serves POST /mcp with createMcpHandler (a fresh server
// instance per request; 2025-era requests are served statelessly, GET and
// DELETE answer 405) and prints one JSON line on stdout once listening:
// {"url":"http://127.0.0.1:PORT/mcp"}. It refuses Host and Origin headers
// that are not localhost's (DNS rebinding). SIGINT or SIGTERM stops it. Over
// stdio it serves with serveStdio (one instance per connection, era chosen
// by the first message) and stops at the end of its input. Diagnostics go to
// stderr.
//
// What it offers (interop/TS2-SERVER.md shows the exact wire):
//
//   - tool echo {text}: returns the text;
//   - tool ask_name: asks for a name with a form elicitation under the key
//     "user_name" (on 2026-07-28 an input_required result with an HMAC-sealed
//     requestState; on a 2025-era stdio connection the SDK turns it into a
//     real elicitation/create request), then answers "Hello, NAME!";
//   - tool lookup {region, count?, verbose?}: its input schema declares
//     x-mcp-header Region, Count and Verbose, so an HTTP client must send
//     Mcp-Param-Region etc. (SEP-2243); answers with the arguments it got;
//   - resource mcpgen-interop://counter (text "counter=N"), which
//     subscriptions/listen can subscribe to (resourceSubscriptions);
//   - tool touch: increments the counter and announces
//     notifications/resources/updated for the resource to the listen streams
//     that asked for it; answers "counter=N".
import http from "node:http";
import { Readable } from "node:stream";
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  hostHeaderValidationResponse,
  inputRequired,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const COUNTER_URI = "mcpgen-interop://counter";
const SERVER_INFO = { name: "mcpgen-interop-ts2-server", version: "1.0.0" };

function usage() {
  return "usage: node ts2-server.mjs [--stdio | --port N]";
}

function parseArgs(argv) {
  const out = { stdio: false, port: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--stdio") {
      out.stdio = true;
    } else if (a === "--port") {
      out.port = Number(argv[++i]);
      if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535) {
        throw new Error(`--port: not a port: ${argv[i]}\n${usage()}`);
      }
    } else {
      throw new Error(`unknown argument ${JSON.stringify(a)}\n${usage()}`);
    }
  }
  return out;
}

// The state the tools share. A fresh server instance serves each HTTP
// request, so it lives here, not in an instance.
let counter = 0;

// The requestState of ask_name is sealed with HMAC-SHA256 and bound to the
// method. The key is per process: one process serves every round.
const stateCodec = createRequestStateCodec({
  key: crypto.getRandomValues(new Uint8Array(32)),
  ttlSeconds: 600,
  bind: (ctx) => ctx.mcpReq.method,
});

const echoSchema = fromJsonSchema({
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
});

const noArgs = fromJsonSchema({ type: "object", properties: {} });

const lookupSchema = fromJsonSchema({
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    verbose: { type: "boolean", "x-mcp-header": "Verbose" },
  },
  required: ["region"],
});

// newServer is the factory both entries call: one instance per HTTP
// request, or per stdio connection (and per discarded server/discover
// probe). announce publishes a resource update to the listen streams.
function newServer(announce) {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
    requestState: { verify: stateCodec.verify },
  });

  server.registerTool("echo", { description: "Returns its text.", inputSchema: echoSchema }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));

  server.registerTool(
    "ask_name",
    { description: "Asks the user's name (one form elicitation, key user_name) and greets them.", inputSchema: noArgs },
    async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "user_name");
      if (typeof answer?.name !== "string") {
        return inputRequired({
          inputRequests: {
            user_name: inputRequired.elicit({
              message: "What is your name?",
              requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
            }),
          },
          requestState: await stateCodec.mint({ round: 1 }, ctx),
        });
      }
      const state = ctx.mcpReq.requestState();
      return { content: [{ type: "text", text: `Hello, ${answer.name}! (state ${JSON.stringify(state ?? null)})` }] };
    },
  );

  server.registerTool(
    "lookup",
    { description: "Answers with its arguments; region, count and verbose are mirrored in Mcp-Param-* headers.", inputSchema: lookupSchema },
    async (args) => ({ content: [{ type: "text", text: `lookup ${JSON.stringify(args)}` }] }),
  );

  server.registerResource(
    "counter",
    COUNTER_URI,
    { description: "A counter that the tool touch increments.", mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `counter=${counter}` }] }),
  );

  server.registerTool(
    "touch",
    { description: `Increments ${COUNTER_URI} and announces notifications/resources/updated for it.`, inputSchema: noArgs },
    async () => {
      counter++;
      await announce(server, COUNTER_URI);
      return { content: [{ type: "text", text: `counter=${counter}` }] };
    },
  );
  return server;
}

function log(msg) {
  process.stderr.write(`ts2-server: ${msg}\n`);
}

function serveOverStdio() {
  // serveStdio routes the notifications the connection's instance sends to
  // the listen streams whose filter asked for them.
  serveStdio(() => newServer((server, uri) => server.server.sendResourceUpdated({ uri })), {
    onerror: (err) => log(`error: ${err?.stack || err}`),
  });
}

async function serveOverHTTP(port) {
  let handler;
  handler = createMcpHandler(() => newServer((_server, uri) => handler.notify.resourceUpdated(uri)), {
    onerror: (err) => log(`error: ${err?.message || err}`),
  });
  const allowedHosts = localhostAllowedHostnames();
  const allowedOrigins = localhostAllowedOrigins();

  const httpServer = http.createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      if (new URL(req.url, "http://localhost").pathname !== "/mcp") {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
        return;
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        for (const x of Array.isArray(v) ? v : [v]) {
          headers.append(k, x);
        }
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Readable.toWeb(req) : undefined,
        duplex: "half",
        signal: abort.signal,
      });
      const response =
        hostHeaderValidationResponse(request, allowedHosts) ??
        originValidationResponse(request, allowedOrigins) ??
        (await handler.fetch(request));
      res.writeHead(response.status, [...response.headers].flat());
      res.flushHeaders();
      if (!response.body) {
        res.end();
        return;
      }
      // Copy the body as it comes (SSE streams stay open), and stop
      // reading it when the client goes away, which closes the stream on
      // the handler's side too.
      const reader = response.body.getReader();
      abort.signal.addEventListener("abort", () => reader.cancel().catch(() => {}), { once: true });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          break;
        }
        res.write(value);
      }
      res.end();
    } catch (err) {
      if (!abort.signal.aborted) {
        log(`serving ${req.method} ${req.url}: ${err?.stack || err}`);
      }
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" }).end("internal error\n");
      } else {
        res.destroy();
      }
    }
  });

  await new Promise((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(port, "127.0.0.1", resolve);
  });
  const { address, port: bound } = httpServer.address();
  process.stdout.write(JSON.stringify({ url: `http://${address}:${bound}/mcp` }) + "\n");

  const stop = async () => {
    log("shutting down");
    await handler.close();
    httpServer.closeAllConnections();
    httpServer.close(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

try {
  const args = parseArgs(process.argv.slice(2));
  if (args.stdio) {
    serveOverStdio();
  } else {
    await serveOverHTTP(args.port);
  }
} catch (err) {
  log(String(err?.message || err));
  process.exit(2);
}
