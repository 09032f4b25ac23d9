/**
 * preTokenIssue hook (docs/hooks.md): adds a `tenant` claim to access and ID tokens, by the
 * application they are issued to. TENANTS maps client ids to tenants as JSON, e.g.
 * {"shop-web":"acme"}; an application not listed is tenant "default".
 */
const tenants = JSON.parse(process.env.TENANTS ?? "{}");

export async function handler(input) {
  if (input.version !== "1" || input.hook !== "preTokenIssue") throw new Error("unexpected hook input");
  const tenant = tenants[input.clientId] ?? "default";
  return {
    accessToken: { claims: { tenant } },
    idToken: { claims: { tenant } },
  };
}
