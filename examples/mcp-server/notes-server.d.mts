/** Types of notes-server.mjs, for the tests that start it. */
export function startNotesServer(options: {
  issuer: string;
  port?: number;
  host?: string;
  url?: string;
}): Promise<{ url: string; close(): Promise<void> }>;
