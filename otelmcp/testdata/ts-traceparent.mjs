// A TypeScript SDK client (the one interop/ installs with npm ci) that
// calls the tool "who" on the Streamable HTTP server at argv[2], putting
// the trace context argv[3] (a traceparent), a tracestate and a baggage in
// the request's params._meta, as an instrumented peer would. It prints the
// tool's result as JSON.
import { Client } from "../../interop/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import { StreamableHTTPClientTransport } from "../../interop/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js";

const [url, traceparent] = process.argv.slice(2);
const client = new Client({ name: "ts-traceparent", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const res = await client.callTool({
  name: "who",
  arguments: {},
  _meta: { traceparent, tracestate: "rojo=00f067aa0ba902b7", baggage: "user=alice" },
});
console.log(JSON.stringify(res));
await client.close();
