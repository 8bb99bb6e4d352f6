// ts-oauth-client.mjs: the TypeScript SDK v1's OAuth client against an
// mcpgen resource server (interop/oauth_test.go). It connects to the MCP
// URL given as its argument with an OAuthClientProvider: the SDK discovers
// the authorization server, registers, sends the user to authorize (here:
// the authorization server approves at once and the provider reads the
// redirect instead of a browser), exchanges the code and connects again
// with the token. Then it lists the tools and calls whoami, and prints
// {"tools": [...], "whoami": "..."} as JSON on stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const url = new URL(process.argv[2]);
const redirect = 'http://localhost:3000/callback';

class HeadlessProvider {
  clientInfo = undefined;
  saved = undefined;
  verifier = undefined;
  code = undefined;
  get redirectUrl() { return redirect; }
  get clientMetadata() {
    return {
      client_name: 'ts-oauth-client',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() { return this.clientInfo; }
  saveClientInformation(info) { this.clientInfo = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(authorizationUrl) {
    const response = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (!location) throw new Error(`authorization: no redirect (status ${response.status})`);
    const code = new URL(location).searchParams.get('code');
    if (!code) throw new Error(`authorization: no code in ${location}`);
    this.code = code;
  }
}

const provider = new HeadlessProvider();

async function connect() {
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const client = new Client({ name: 'ts-oauth-client', version: '1.0.0' });
  try {
    await client.connect(transport);
    return { client, transport };
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || !provider.code) throw e;
    await transport.finishAuth(provider.code);
    return null;
  }
}

try {
  let c = await connect();
  if (!c) c = await connect();
  if (!c) throw new Error('still unauthorized after logging in');
  const tools = await c.client.listTools();
  const res = await c.client.callTool({ name: 'whoami', arguments: {} });
  console.log(JSON.stringify({ tools: tools.tools.map((t) => t.name), whoami: res.content[0].text }));
  await c.transport.close();
} catch (e) {
  console.error(e?.stack ?? String(e));
  process.exit(1);
}
