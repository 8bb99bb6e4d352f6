// ts2-skills.mjs: the Skills extension (io.modelcontextprotocol/skills) of
// the TypeScript SDK v2 (@modelcontextprotocol/server and client 2.4.0,
// ext/skills), for ts2_skills_test.go to run against this project's
// protocol/ext/skills, both ways.
//
//   node ts2-skills.mjs serve DIR    a server of the skills in DIR
//   node ts2-skills.mjs host URL     a host reading the skills of URL
//
// serve: loadSkills(DIR) attached to each McpServer that createMcpHandler
// makes (one per request), over Streamable HTTP on 127.0.0.1 at a free
// port, POST /mcp; it prints {"url":"http://127.0.0.1:PORT/mcp"} once
// listening, and stops on SIGINT or SIGTERM. Diagnostics go to stderr.
//
// host: a Client of the stateless era (negotiation "auto") and a
// SkillsClient: it lists the skills, gets the first, gets an unknown one,
// reads every file of every skill (each verified by the SDK against the
// entry), and reads their directories and subdirectories. It prints one
// JSON line on stdout, the report (ts2SkillsReport in ts2_skills_test.go);
// on failure the report carries "error" and the exit status is 1. The run
// is bounded by TS2_CLIENT_TIMEOUT_MS (default 30000; exit 2).
import http from "node:http";
import { Readable } from "node:stream";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient, SkillVerificationError } from "@modelcontextprotocol/client/ext/skills";

const usage = "usage: node ts2-skills.mjs serve DIR | host URL";

function log(msg) {
  process.stderr.write(`ts2-skills: ${msg}\n`);
}

async function serve(dir) {
  const catalog = await loadSkills(dir, { strict: true, onWarning: (w) => log(`warning: ${w.path}: ${w.message}`) });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: "mcpgen-interop-ts2-skills", version: "1.0.0" });
      catalog.attach(server);
      return server;
    },
    { onerror: (err) => log(`error: ${err?.message || err}`) },
  );
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (new URL(req.url, "http://localhost").pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        for (const x of Array.isArray(v) ? v : [v]) {
          headers.append(k, x);
        }
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const response = await handler.fetch(
        new Request(`http://${req.headers.host ?? "localhost"}${req.url}`, {
          method: req.method,
          headers,
          body: hasBody ? Readable.toWeb(req) : undefined,
          duplex: "half",
        }),
      );
      res.writeHead(response.status, [...response.headers].flat());
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      log(`serving ${req.method} ${req.url}: ${err?.stack || err}`);
      if (!res.headersSent) {
        res.writeHead(500).end();
      } else {
        res.destroy();
      }
    }
  });
  await new Promise((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(0, "127.0.0.1", resolve);
  });
  const { address, port } = httpServer.address();
  process.stdout.write(JSON.stringify({ url: `http://${address}:${port}/mcp` }) + "\n");
  const stop = async () => {
    await handler.close();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function host(url) {
  const report = {};
  const timeoutMs = Number(process.env.TS2_CLIENT_TIMEOUT_MS || 30000);
  const timer = setTimeout(() => {
    report.error = `timed out after ${timeoutMs} ms`;
    process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(2));
  }, timeoutMs);
  const sent = [];
  try {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const send = transport.send.bind(transport);
    transport.send = (msg, opts) => {
      if (msg.method) {
        sent.push(msg.method);
      }
      return send(msg, opts);
    };
    const client = new Client({ name: "mcpgen-interop-ts2-skills-host", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(transport);
    report.protocolVersion = client.getNegotiatedProtocolVersion();
    const skills = new SkillsClient(client);
    report.supported = skills.supported;
    report.directoryRead = skills.directoryRead;
    const listed = await skills.list();
    report.skills = listed.skills;
    report.listCache = { ttlMs: listed.ttlMs, cacheScope: listed.cacheScope };
    report.sentAfterList = [...sent];
    const first = listed.skills[0];
    const got = await skills.get(first.uri);
    report.get = got.skill;
    try {
      await skills.get("skill://no-such-skill/SKILL.md");
      report.getUnknown = "no error";
    } catch (err) {
      report.getUnknown = err?.code ?? String(err);
    }
    report.reads = [];
    for (const skill of listed.skills) {
      for (const r of skill.resources) {
        const f = await skills.read(skill, r.uri);
        report.reads.push({
          uri: f.uri,
          mimeType: f.mimeType,
          verified: f.verified,
          data: Buffer.from(f.bytes).toString("base64"),
          frontmatter: f.frontmatter,
        });
      }
    }
    try {
      await skills.read(first, "not-listed.md");
      report.unlisted = "no error";
    } catch (err) {
      report.unlisted = err instanceof SkillVerificationError ? err.reason : String(err);
    }
    report.directories = {};
    const queue = listed.skills.map((skill) => skill.uri.slice(0, -"/SKILL.md".length));
    while (queue.length > 0 && Object.keys(report.directories).length < 50) {
      const dir = queue.shift();
      const { resources } = await skills.readDirectory(dir);
      report.directories[dir] = resources;
      for (const r of resources) {
        if (r.mimeType === "inode/directory") {
          queue.push(r.uri);
        }
      }
    }
    await client.close();
  } catch (err) {
    report.error = String(err?.stack || err);
  }
  clearTimeout(timer);
  report.sent = sent;
  process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(report.error ? 1 : 0));
}

const [mode, arg] = process.argv.slice(2);
if (mode === "serve" && arg) {
  serve(arg).catch((err) => {
    log(err?.stack || err);
    process.exit(1);
  });
} else if (mode === "host" && arg) {
  host(arg);
} else {
  log(usage);
  process.exit(2);
}
