// A "notes" MCP server protected by svc-identity (notes-server.mjs): MCP clients find svc-identity
// through its protected resource metadata, sign the user in, and call list_notes / add_note with an
// access token for the MCP URL. svc-identity must know that URL as a resource with the scopes
// notes:read and notes:write.
// Run: node examples/mcp-server/server.mjs  (ISSUER, PORT, MCP_URL override the local defaults)
import { startNotesServer } from "./notes-server.mjs";

const port = Number(process.env.PORT ?? 4100);
const { url } = await startNotesServer({
  issuer: process.env.ISSUER ?? "http://127.0.0.1:3000/svc",
  port,
  url: process.env.MCP_URL ?? `http://127.0.0.1:${port}/mcp`,
});
console.log(`Notes MCP server: ${url}`);
