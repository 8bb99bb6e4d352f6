// ts2-client.mjs: the TypeScript SDK v2 client (@modelcontextprotocol/client
// 2.4.0) against an MCP server, with version negotiation on ("auto": it
// probes with server/discover at 2026-07-28 and falls back to initialize)
// or off, as the scenario says.
//
//   node ts2-client.mjs --scenario SCENARIO --url URL
//   node ts2-client.mjs --scenario SCENARIO -- COMMAND [ARG...]
//
// With --url it speaks Streamable HTTP to URL; otherwise it starts COMMAND
// and speaks stdio (with negotiation on, the SDK probes a stdio server on a
// sibling process of its own, then starts COMMAND once more for the
// connection).
//
// Every scenario connects, lists the tools and calls "echo":
//
//   - modern: negotiation "auto", against a server of 2026-07-28. It then
//     calls "ask_name", which asks for a name with a form elicitation (an
//     input_required result, which the SDK answers through the elicitation
//     handler registered here, then retries), opens subscriptions/listen
//     for tools list_changed, calls "add_tool" (the server adds a tool),
//     waits for the list_changed notification, lists the tools again and
//     closes the subscription.
//   - fallback: negotiation "auto", against a server of the initialize era,
//     which the SDK must fall back to; nothing more.
//   - legacy: negotiation off (the SDK's default, a 2025-11-25 client),
//     against a server of both eras: as modern, but the elicitation is a
//     real elicitation/create request from the server, and list_changed
//     comes unsolicited (no subscriptions/listen in that era).
//
// It prints one JSON line on stdout, the report (its members are those of
// ts2Report in ts2_test.go), which ts2_test.go decodes and compares; on failure the report carries "error"
// and the exit status is 1. Every message the client's transport sends or
// receives is traced on stderr ("ts2-client: -> " sent, "<- " received).
// The run is bounded by TS2_CLIENT_TIMEOUT_MS (default 30000; exit 2).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

// The inputs, which ts2_test.go checks the answers against.
const ECHO_TEXT = "hello from the TypeScript SDK v2";
const USER_NAME = "Ada";

const timeoutMs = Number(process.env.TS2_CLIENT_TIMEOUT_MS || 30000);
// How long to wait for the list_changed notification after add_tool.
const notificationTimeoutMs = Number(process.env.TS2_CLIENT_NOTIFY_MS || 10000);

const report = {};
let transport;
let finished = false;

function trace(dir, msg) {
  process.stderr.write(`ts2-client: ${dir} ${JSON.stringify(msg)}\n`);
}

function finish(code) {
  if (finished) {
    return;
  }
  finished = true;
  process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(code));
}

function fail(err, code) {
  report.error = String(err?.stack || err);
  try {
    transport?._process?.kill("SIGKILL"); // never leave a stdio server behind
  } catch {}
  finish(code);
}

const timer = setTimeout(() => fail(new Error(`timed out after ${timeoutMs} ms`), 2), timeoutMs);

function parseArgs(argv) {
  const out = { scenario: "", url: "", command: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--scenario") {
      out.scenario = argv[++i];
    } else if (a === "--url") {
      out.url = argv[++i];
    } else if (a === "--") {
      out.command = argv.slice(i + 1);
      break;
    } else {
      throw new Error(`unknown argument ${JSON.stringify(a)}`);
    }
  }
  if (!["modern", "fallback", "legacy"].includes(out.scenario)) {
    throw new Error("usage: node ts2-client.mjs --scenario modern|fallback|legacy (--url URL | -- COMMAND [ARG...])");
  }
  if (!out.url === !out.command.length) {
    throw new Error("give either --url URL or -- COMMAND [ARG...]");
  }
  return out;
}

// traceTransport traces both directions of t and records the methods it
// sends in report.sent.
function traceTransport(t) {
  report.sent = [];
  const send = t.send.bind(t);
  t.send = (msg, opts) => {
    trace("->", msg);
    if (msg.method) {
      report.sent.push(msg.method);
    }
    return send(msg, opts);
  };
  let onmessage;
  Object.defineProperty(t, "onmessage", {
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
}

function texts(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

// waitFor resolves when check() holds, polling every 20 ms, or rejects
// after ms.
async function waitFor(what, ms, check) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`no ${what} within ${ms} ms`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  report.transport = args.url ? "http" : "stdio";
  if (args.url) {
    transport = new StreamableHTTPClientTransport(new URL(args.url));
  } else {
    const [command, ...rest] = args.command;
    transport = new StdioClientTransport({ command, args: rest, stderr: "inherit" });
  }
  traceTransport(transport);

  const client = new Client(
    { name: "mcpgen-interop-ts2-client", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: args.scenario === "legacy" ? "legacy" : "auto" },
    },
  );
  report.elicitations = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    report.elicitations.push({ mode: request.params.mode ?? "form", message: request.params.message });
    return { action: "accept", content: { name: USER_NAME } };
  });
  report.notifications = [];
  client.setNotificationHandler("notifications/tools/list_changed", (n) => {
    report.notifications.push({
      method: n.method,
      subscriptionId: n.params?._meta?.["io.modelcontextprotocol/subscriptionId"] ?? null,
    });
  });

  await client.connect(transport);
  report.era = client.getProtocolEra();
  report.negotiated = client.getNegotiatedProtocolVersion();
  report.serverName = client.getServerVersion()?.name ?? null;

  const tools = await client.listTools();
  report.tools = tools.tools.map((t) => t.name).sort();

  const echo = await client.callTool({ name: "echo", arguments: { text: ECHO_TEXT } });
  report.echo = { text: texts(echo), isError: echo.isError ?? false };

  if (args.scenario !== "fallback") {
    const ask = await client.callTool({ name: "ask_name", arguments: {} });
    report.askName = { text: texts(ask), isError: ask.isError ?? false };

    // A legacy session gets list_changed unsolicited (on HTTP, on the GET
    // stream); a modern connection subscribes.
    const sub = args.scenario === "modern" ? await client.listen({ toolsListChanged: true }) : undefined;
    report.honoredFilter = sub?.honoredFilter;
    const add = await client.callTool({ name: "add_tool", arguments: {} });
    report.added = texts(add);
    await waitFor("notifications/tools/list_changed", notificationTimeoutMs, () => report.notifications.length > 0);
    const after = await client.listTools(undefined, { cacheMode: "refresh" });
    report.toolsAfter = after.tools.map((t) => t.name).sort();
    if (sub) {
      await sub.close();
      report.subscriptionClosed = await sub.closed;
    }
  }

  await client.close();
  report.closed = true;
}

main().then(
  () => {
    clearTimeout(timer);
    finish(0);
  },
  (err) => fail(err, 1),
);
