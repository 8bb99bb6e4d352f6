// ts-sse-client.mjs: the official TypeScript SDK v1 client
// (@modelcontextprotocol/sdk) over its HTTP+SSE transport of 2024-11-05
// (SSEClientTransport), against an MCP server's SSE URL.
//
//   node ts-sse-client.mjs URL
//
// It opens the stream at URL, initializes, lists the tools and calls
// "echo". Each step prints one JSON line on stdout: {"step": NAME, ...}.
// Every message exchanged is traced on stderr ("ts-sse-client: -> " sent,
// "ts-sse-client: <- " received). Any error prints
// {"step":"error","message":...} and exits 1; the whole run is bounded by
// a hard timeout (TS_CLIENT_TIMEOUT_MS, default 30000) that exits 2.
// sse_test.go runs it and checks the lines.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

// The input, which sse_test.go checks the answer against.
const ECHO_TEXT = "hello over HTTP+SSE from the TypeScript SDK";

const timeoutMs = Number(process.env.TS_CLIENT_TIMEOUT_MS || 30000);

function emit(step, fields) {
  process.stdout.write(JSON.stringify({ step, ...fields }) + "\n");
}

function trace(dir, msg) {
  process.stderr.write(`ts-sse-client: ${dir} ${JSON.stringify(msg)}\n`);
}

function fail(message, code) {
  emit("error", { message });
  process.stdout.write("", () => process.exit(code));
}

const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`, 2), timeoutMs);

async function main() {
  const [url] = process.argv.slice(2);
  if (!url) {
    throw new Error("usage: node ts-sse-client.mjs URL");
  }
  const transport = new SSEClientTransport(new URL(url));
  let requested;
  const send = transport.send.bind(transport);
  transport.send = (msg, opts) => {
    trace("->", msg);
    if (msg.method === "initialize") {
      requested = msg.params?.protocolVersion;
    }
    return send(msg, opts);
  };
  let onmessage;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get() {
      return onmessage && ((msg, extra) => {
        trace("<-", msg);
        return onmessage(msg, extra);
      });
    },
    set(fn) {
      onmessage = fn;
    },
  });

  const client = new Client({ name: "mcpgen-interop-ts-sse-client", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  emit("initialize", {
    requested,
    endpoint: String(transport._endpoint ?? ""),
    serverInfo: client.getServerVersion(),
  });

  const tools = await client.listTools();
  emit("tools/list", { names: tools.tools.map((t) => t.name) });

  const call = await client.callTool({ name: "echo", arguments: { text: ECHO_TEXT } });
  emit("tools/call", { text: ECHO_TEXT, result: call });

  await client.close();
  emit("done", {});
}

main().then(
  () => {
    clearTimeout(timer);
    process.stdout.write("", () => process.exit(0));
  },
  (err) => fail(String(err?.stack || err), 1),
);
