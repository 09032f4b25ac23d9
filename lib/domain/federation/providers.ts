import type { FederationProviderConfig } from "../../config/settings";
import { problems } from "../errors";

/** External providers come from the operator's settings (docs/configuration.md `federation.providers`). */

export function findProvider(
  providers: readonly FederationProviderConfig[],
  fpType: string,
  fpName: string,
): FederationProviderConfig | undefined {
  return providers.find((p) => p.type === fpType && p.name === fpName);
}

export function requireProvider(
  providers: readonly FederationProviderConfig[],
  fpType: string,
  fpName: string,
): FederationProviderConfig {
  const provider = findProvider(providers, fpType, fpName);
  if (!provider) throw problems.unknownProvider(fpType, fpName);
  return provider;
}

/** `fp` of the bind call: `<type>:<name>`. */
export function splitFp(fp: string): { fpType: string; fpName: string } {
  const colon = fp.indexOf(":");
  return { fpType: fp.slice(0, colon), fpName: fp.slice(colon + 1) };
}
