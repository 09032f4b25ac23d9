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
