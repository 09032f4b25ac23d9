import type { FunctionName } from "../../lib/http/route";
import { createRouteMatcher } from "../../lib/http/route-matcher";
import { routes } from "../../lib/routes";
import { median } from "./cold-start";
import { hostedSignInFlow } from "./hosted-sign-in";
import { type Spent, spentFrom } from "./spent";

/**
 * The requests the cost comparisons price, each run several times in a row against the
 * counting gateway (warm functions, one request at a time): what every request of a flow
 * spent, as medians over the runs.
 */

/** Measured runs of each flow, after one unreported run (first compiles, the client cache). */
export const COST_RUNS = 5;

export interface FlowRequest {
  route: string;
  fn: FunctionName;
  rcu: number;
  wcu: number;
  /** Median handler time over the runs, ms. */
  handlerMs: number;
}

export interface MeasuredFlow {
  name: string;
  requests: FlowRequest[];
  runs: number;
}

export interface FlowSettings {
  /** The counting gateway. */
  base: string;
  /** HTTP Basic of a confidential client allowed the password and refresh_token grants. */
  clientBasic: string;
  /** A token with svc_api_sys_users. */
  systemToken: string;
  /** Accounts with `password`, signed in in turn. */
  emails: string[];
  password: string;
}

const matchRoute = createRouteMatcher(routes);

interface Observed {
  route: string;
  fn: FunctionName;
  spent: Spent;
}

function observed(method: string, answer: Response): Observed {
  const match = matchRoute(method, new URL(answer.url).pathname);
  if (match.kind !== "route") throw new Error(`${method} ${answer.url} matches no route`);
  if (answer.status >= 400) throw new Error(`${match.route.id} answered ${answer.status}`);
  return { route: match.route.id, fn: match.route.fn, spent: spentFrom(answer.headers) };
}

/** Runs `once` 1 + COST_RUNS times; each request's figures are medians over the measured runs. */
async function measureOne(
  name: string,
  once: (record: (method: string, answer: Response) => void) => Promise<void>,
): Promise<MeasuredFlow> {
  const runs: Observed[][] = [];
  for (let run = 0; run <= COST_RUNS; run += 1) {
    const seen: Observed[] = [];
    await once((method, answer) => seen.push(observed(method, answer)));
    if (run > 0) runs.push(seen);
  }
  const requests = runs[0].map((first, i) => {
    const of = (pick: (s: Spent) => number) => median(runs.map((seen) => pick(seen[i].spent)));
    return {
      route: first.route,
      fn: first.fn,
      rcu: of((s) => s.rcu),
      wcu: of((s) => s.wcu),
      handlerMs: of((s) => s.handlerMs),
    };
  });
  return { name, requests, runs: COST_RUNS };
}

const FORM = "application/x-www-form-urlencoded";

export async function measureCostFlows(settings: FlowSettings): Promise<MeasuredFlow[]> {
  const { base, clientBasic } = settings;
  const token = async (body: string) => {
    const answer = await fetch(`${base}/svc/oauth/te`, {
      method: "POST",
      headers: { authorization: clientBasic, "content-type": FORM },
      body,
    });
    return { answer, json: (await answer.json()) as { refresh_token?: string } };
  };
  let next = 0;
  const refreshTokens: string[] = [];
  const flows = [
    await measureOne("client_credentials grant", async (record) => {
      record("POST", (await token("grant_type=client_credentials&scope=svc_api_sys_users")).answer);
    }),
    await measureOne("GET user, system mode", async (record) => {
      const answer = await fetch(`${base}/svc/api/v3/users/bench-user`, {
        headers: { authorization: `Bearer ${settings.systemToken}` },
      });
      await answer.arrayBuffer();
      record("GET", answer);
    }),
    await measureOne("password grant (scrypt N=2^17)", async (record) => {
      const username = encodeURIComponent(settings.emails[next++ % settings.emails.length]);
      const { answer, json } = await token(
        `grant_type=password&username=${username}&password=${encodeURIComponent(settings.password)}&scope=svc_api_user`,
      );
      record("POST", answer);
      if (json.refresh_token) refreshTokens.push(json.refresh_token);
    }),
    await measureOne("refresh_token grant", async (record) => {
      const refreshToken = refreshTokens.shift();
      if (!refreshToken) throw new Error("no refresh token left from the password grants");
      record(
        "POST",
        (await token(`grant_type=refresh_token&refresh_token=${encodeURIComponent(refreshToken)}`)).answer,
      );
    }),
  ];
  let observe: (answer: Response) => void = () => undefined;
  const signIn = hostedSignInFlow(base, settings.emails, settings.password, (answer) => observe(answer));
  flows.push(
    await measureOne("hosted sign-in: form post + code exchange", async (record) => {
      const browser = await signIn.prepare();
      observe = (answer) => record("POST", answer);
      await signIn.run(browser, new AbortController().signal);
    }),
  );
  return flows;
}
