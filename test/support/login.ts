import { expect } from "vitest";
import { invoke, sampleEvent } from "./fixtures";
import { basicCredentials } from "./requests";

/** A password-grant request of the sample, with this application and form (and headers). */
export async function passwordLogin(
  client: { clientId: string; secret: string },
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const event = await sampleEvent("events/token/password-grant.json", {
    clientBasic: basicCredentials(client.clientId, client.secret),
    username: "x",
    password: "x",
  });
  event.body = new URLSearchParams({ grant_type: "password", ...form }).toString();
  Object.assign(event.headers, headers);
  return invoke("token", event);
}

/** The tokens of a password grant that must succeed. */
export async function signedIn(
  client: { clientId: string; secret: string },
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const response = await passwordLogin(client, form, headers);
  expect(response.statusCode).toBe(200);
  return response.json as { access_token: string; refresh_token: string };
}
