// A small "notes" MCP server protected by svc-identity, importable for tests (server.mjs runs it).
// It is an RFC 9728 protected resource named by its MCP endpoint URL: its metadata is served at
// /.well-known/oauth-protected-resource/<path>, and every MCP request needs an svc-identity access
// token (at+jwt, ES256) whose aud is that URL; tools/call needs notes:read or notes:write.
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createRemoteJWKSet, errors, jwtVerify } from "jose";
import { z } from "zod";

const TOOL_SCOPES = new Map([
  ["list_notes", "notes:read"],
  ["add_note", "notes:write"],
]);
const SCOPES = [...TOOL_SCOPES.values()];
const MAX_BODY = 1 << 20;

/** Starts the server; `url` is the public MCP endpoint URL when it differs from http://host:port/mcp. */
export async function startNotesServer({ issuer, port = 0, host = "127.0.0.1", url }) {
  const notes = new Map(); // sub -> [text]
  let jwks; // from the issuer's discovery document, fetched on first use
  const keys = () => {
    jwks ??= fetch(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`)
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error(`discovery: HTTP ${res.status}`))))
      .then((discovery) => createRemoteJWKSet(new URL(discovery.jwks_uri)));
    return jwks.catch((error) => {
      jwks = undefined; // try again on the next request
      throw error;
    });
  };

  const http = createServer((req, res) =>
    handle(req, res).catch((error) => {
      console.error(error);
      if (!res.headersSent) json(res, 500, { error: "server_error" });
      else res.end();
    }),
  );
  await new Promise((resolve, reject) => http.once("error", reject).listen(port, host, resolve));
  const resource = url ?? `http://${host.includes(":") ? `[${host}]` : host}:${http.address().port}/mcp`;
  const mcpPath = new URL(resource).pathname;
  const metadataUrl = new URL(`/.well-known/oauth-protected-resource${mcpPath}`, resource).href;
  const metadata = {
    resource,
    authorization_servers: [issuer],
    scopes_supported: SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "Notes",
  };

  const challenge = (res, status, params, body) => {
    const header = [...params, `resource_metadata="${metadataUrl}"`].join(", ");
    json(res, status, body, { "www-authenticate": `Bearer ${header}` });
  };

  async function handle(req, res) {
    const { pathname } = new URL(req.url, resource);
    if (pathname === new URL(metadataUrl).pathname && req.method === "GET") {
      return json(res, 200, metadata, { "access-control-allow-origin": "*" });
    }
    if (pathname !== mcpPath) return json(res, 404, { error: "not_found" });

    const token = /^Bearer +([\w.~+/-]+=*)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (!token) return challenge(res, 401, [], { error: "unauthorized", error_description: "Bearer token required" });
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(token, await keys(), {
        issuer,
        audience: resource,
        algorithms: ["ES256"],
        typ: "at+jwt",
        requiredClaims: ["sub"],
      }));
    } catch (error) {
      if (!(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout) throw error;
      return challenge(res, 401, ['error="invalid_token"'], {
        error: "invalid_token",
        error_description: error.message,
      });
    }
    // Stateless: no GET stream, no session to DELETE.
    if (req.method !== "POST") return json(res, 405, { error: "method_not_allowed" }, { allow: "POST" });

    let body;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return json(res, 400, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
    }
    const granted = new Set(typeof claims.scope === "string" ? claims.scope.split(" ") : []);
    for (const message of [body].flat()) {
      const needed = message?.method === "tools/call" ? TOOL_SCOPES.get(message.params?.name) : undefined;
      if (needed && !granted.has(needed)) {
        // The scope a new token needs: what this one has and the missing one (a step-up replaces, not adds).
        const wanted = [...new Set([...granted, needed])].filter((s) => SCOPES.includes(s)).join(" ");
        return challenge(res, 403, ['error="insufficient_scope"', `scope="${wanted}"`], {
          error: "insufficient_scope",
          error_description: `${message.params.name} needs ${needed}`,
        });
      }
    }

    const server = notesMcpServer(notes);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    req.auth = { token, clientId: claims.client_id, scopes: [...granted], resource: new URL(resource), extra: claims };
    await transport.handleRequest(req, res, body);
  }

  return {
    url: resource,
    close: () =>
      new Promise((resolve) => {
        http.close(resolve);
        http.closeAllConnections();
      }),
  };
}

function notesMcpServer(notes) {
  const server = new McpServer({ name: "notes", version: "1.0.0" });
  const text = (value) => ({ content: [{ type: "text", text: value }] });
  server.registerTool(
    "list_notes",
    { description: "Lists your notes (scope notes:read).", annotations: { readOnlyHint: true } },
    (extra) => {
      const mine = notes.get(extra.authInfo.extra.sub) ?? [];
      return text(mine.length ? mine.map((note, i) => `${i + 1}. ${note}`).join("\n") : "No notes yet.");
    },
  );
  server.registerTool(
    "add_note",
    { description: "Adds a note (scope notes:write).", inputSchema: { text: z.string().min(1).max(2000) } },
    ({ text: note }, extra) => {
      const sub = extra.authInfo.extra.sub;
      notes.set(sub, [...(notes.get(sub) ?? []), note]);
      return text(`Added note ${notes.get(sub).length}.`);
    },
  );
  return server;
}

function json(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req) {
  let size = 0;
  const chunks = [];
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error("body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
