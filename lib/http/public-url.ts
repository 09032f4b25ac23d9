/** The endpoints hang below the issuer's base: SVC_ISSUER is `<base>/svc` (docs/sign-in.md). */
export function publicUrl(issuer: string, path: string): string {
  return `${issuer.replace(/\/svc\/?$/, "")}${path}`;
}
