import { readFileSync } from "node:fs";
import { OAuth2Server } from "oauth2-mock-server";

/** The operator settings the federation and client registration samples are written for (README "Try it locally"). */
const SAMPLE_SETTINGS = [
  "events/federation/svc-config.mock-provider.json",
  "events/clients/svc-config.registration.json",
];
/** Where those settings expect the provider. */
const SAMPLE_PROVIDER_URL = "http://127.0.0.1:8081";

/**
 * The federation samples' provider (`oidc:mock`): oauth2-mock-server, a real OpenID
 * Connect server, on a free loopback port, and the sample settings pointed at it. With
 * it the round-trip sweep brings bind, callback and the stored provider token to a 2xx.
 */
export async function startSampleProvider(): Promise<{
  /** Its issuer (an organization's SSO connection names it). */
  url: string;
  settings: Record<string, unknown>;
  /** Sign-ins at the provider from now on are this person (its `sub` in tokens and userinfo); undefined: the default one. */
  signInAs: (sub: string | undefined) => void;
  stop: () => Promise<void>;
}> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  const url = server.issuer.url as string;
  const settings = Object.assign(
    {},
    ...SAMPLE_SETTINGS.map((file) => JSON.parse(readFileSync(file, "utf8").replaceAll(SAMPLE_PROVIDER_URL, url))),
  );
  let person: string | undefined;
  server.service.on("beforeTokenSigning", (token) => {
    if (person) token.payload.sub = person;
  });
  server.service.on("beforeUserinfo", (userinfo) => {
    if (person) userinfo.body = { ...(userinfo.body as object), sub: person };
  });
  const signInAs = (sub: string | undefined) => {
    person = sub;
  };
  return { url, settings, signInAs, stop: () => server.stop() };
}
