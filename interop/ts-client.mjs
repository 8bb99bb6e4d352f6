// ts-client.mjs: the official TypeScript SDK client (@modelcontextprotocol/sdk)
// against an MCP server started over stdio.
//
//   node ts-client.mjs COMMAND [ARG...]
//
// It starts COMMAND, initializes (the SDK offers its newest revision,
// 2025-11-25), then lists and calls the tool "echo", lists and gets the prompt
// "greet", lists and reads the resource "mcpgen://readme". Each step prints
// one JSON line on stdout: {"step": NAME, ...}. Every message exchanged is
// traced on stderr ("ts-client: -> " sent, "ts-client: <- " received). Any
// error prints {"step":"error","message":...} and exits 1; the whole run is
// bounded by a hard timeout (TS_CLIENT_TIMEOUT_MS, default 30000) that exits 2.
// interop_test.go runs it and checks the lines.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

// The inputs, which interop_test.go checks the answers against.
const ECHO_TEXT = "hello from the TypeScript SDK";
const GREET_NAME = "Ada";
const RESOURCE_URI = "mcpgen://readme";

const timeoutMs = Number(process.env.TS_CLIENT_TIMEOUT_MS || 30000);

function emit(step, fields) {
  process.stdout.write(JSON.stringify({ step, ...fields }) + "\n");
}

function trace(dir, msg) {
  process.stderr.write(`ts-client: ${dir} ${JSON.stringify(msg)}\n`);
}

let transport; // set in main; its child is killed on failure

function fail(message, code) {
  emit("error", { message });
  try {
    transport?._process?.kill("SIGKILL"); // never leave the server behind
  } catch {}
  // Let stdout drain before leaving.
  process.stdout.write("", () => process.exit(code));
}

const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`, 2), timeoutMs);

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    throw new Error("usage: node ts-client.mjs COMMAND [ARG...]");
  }

  transport = new StdioClientTransport({ command, args, stderr: "inherit" });

  // Trace both directions. The client sets transport.onmessage in connect;
  // the accessor wraps whatever it sets.
  let requested;
  let negotiated;
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
  // The client hands the negotiated revision to transports that take it
  // (the HTTP ones); stdio has no such method, so add one to learn it.
  transport.setProtocolVersion = (v) => {
    negotiated = v;
  };

  const client = new Client({ name: "mcpgen-interop-ts-client", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  emit("initialize", {
    sdkLatest: LATEST_PROTOCOL_VERSION,
    requested,
    negotiated,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
  });

  const tools = await client.listTools();
  emit("tools/list", { names: tools.tools.map((t) => t.name), result: tools });

  const call = await client.callTool({ name: "echo", arguments: { text: ECHO_TEXT } });
  emit("tools/call", { arguments: { text: ECHO_TEXT }, result: call });

  const prompts = await client.listPrompts();
  emit("prompts/list", { names: prompts.prompts.map((p) => p.name), result: prompts });

  const prompt = await client.getPrompt({ name: "greet", arguments: { name: GREET_NAME } });
  emit("prompts/get", { arguments: { name: GREET_NAME }, result: prompt });

  const resources = await client.listResources();
  emit("resources/list", { uris: resources.resources.map((r) => r.uri), result: resources });

  const read = await client.readResource({ uri: RESOURCE_URI });
  emit("resources/read", { uri: RESOURCE_URI, result: read });

  await client.close(); // closes stdin, then signals the child
  emit("done", {});
}

main().then(
  () => {
    clearTimeout(timer);
    process.stdout.write("", () => process.exit(0));
  },
  (err) => fail(String(err?.stack || err), 1),
);
