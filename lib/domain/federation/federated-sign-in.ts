import { type BindDeps, type ProviderAnswer, redeemAnswer } from "./bind";
import { ProviderError } from "./provider-client";
import { findProvider } from "./providers";
import type { BindState } from "./records";

/**
 * "Sign in with <provider>" on the hosted pages (docs/sign-in.md): the provider's answer
 * to a state started by the sign-in page names an external account; the account linked
 * to it (interface §4.9) is the one that signs in. Nothing is linked or created here.
 */

export type FederatedSignIn =
  | { ok: true; sub: string }
  | { ok: false; problem: "denied" | "provider_error" | "not_linked" };

export async function completeFederatedSignIn(
  deps: Pick<BindDeps, "providers" | "federation" | "log">,
  state: BindState,
  answer: ProviderAnswer,
  now: number,
): Promise<FederatedSignIn> {
  const provider = findProvider(deps.providers, state.fpType, state.fpName);
  if (answer.error || !answer.code || !provider) return { ok: false, problem: "denied" };
  try {
    const { account: external } = await redeemAnswer(provider, state, answer.code, now);
    const sub = await deps.federation.ownerOf(provider.type, provider.name, external.sid);
    return sub ? { ok: true, sub } : { ok: false, problem: "not_linked" };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    deps.log("sign-in failed at the provider", {
      fpType: provider.type,
      fpName: provider.name,
      problem: error.message,
    });
    return { ok: false, problem: "provider_error" };
  }
}
