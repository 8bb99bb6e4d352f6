// ts2-forecast.mjs: the TypeScript SDK v2 client (@modelcontextprotocol/client
// 2.4.0) against examples/forecast over stdio, with version negotiation on
// ("auto": 2026-07-28 first) or off ("legacy": initialize at 2025-11-25).
//
//   node ts2-forecast.mjs --mode auto|legacy -- COMMAND [ARG...]
//
// It lists the tools, calls forecast with {"city":"Oslo"}, with
// {"city":"Oslo","days":99} and with {}, gets the plan-trip prompt and reads
// weather://cities, and prints one JSON line, the report that
// forecast_test.go in this folder compares. The run is bounded by 30 s.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const report = {};
let transport;

function done(code) {
  process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(code));
}

const timer = setTimeout(() => {
  report.error = "timed out after 30000 ms";
  try {
    transport?._process?.kill("SIGKILL");
  } catch {}
  done(2);
}, 30000);

const argv = process.argv.slice(2);
const mode = argv[argv.indexOf("--mode") + 1];
const [command, ...rest] = argv.slice(argv.indexOf("--") + 1);

// call reports a tools/call: its structured content, or the error text.
async function call(client, args) {
  const res = await client.callTool({ name: "forecast", arguments: args });
  const text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  return res.isError ? { isError: true, text } : { structured: res.structuredContent ?? null };
}

try {
  transport = new StdioClientTransport({ command, args: rest, stderr: "inherit" });
  const client = new Client({ name: "mcpgen-interop-forecast", version: "1.0.0" }, { capabilities: {}, versionNegotiation: { mode } });
  await client.connect(transport);
  report.negotiated = client.getNegotiatedProtocolVersion();
  const tools = await client.listTools();
  report.tools = tools.tools.map((t) => t.name);
  report.outputSchemaRequired = tools.tools.find((t) => t.name === "forecast")?.outputSchema?.required ?? null;
  report.oslo = await call(client, { city: "Oslo" });
  report.tooMany = await call(client, { city: "Oslo", days: 99 });
  report.empty = await call(client, {});
  const prompt = await client.getPrompt({ name: "plan-trip", arguments: { city: "Bergen" } });
  report.prompt = prompt.messages.map((m) => m.content.text).join("\n");
  const read = await client.readResource({ uri: "weather://cities" });
  report.citiesMime = read.contents[0]?.mimeType ?? null;
  await client.close();
  clearTimeout(timer);
  done(0);
} catch (err) {
  report.error = String(err?.stack || err);
  try {
    transport?._process?.kill("SIGKILL");
  } catch {}
  done(1);
}
