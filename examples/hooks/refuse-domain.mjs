/**
 * preRegistration hook (docs/hooks.md): refuses registrations whose e-mail is at one of the
 * domains in REFUSED_DOMAINS (comma separated, default example.net), and vouches for e-mails
 * at TRUSTED_DOMAIN (stored confirmed, no code sent) when that is set.
 */
const refused = (process.env.REFUSED_DOMAINS ?? "example.net").split(",").map((d) => d.trim().toLowerCase());
const trusted = process.env.TRUSTED_DOMAIN?.toLowerCase();

export async function handler(input) {
  if (input.version !== "1" || input.hook !== "preRegistration") throw new Error("unexpected hook input");
  const domain = input.user.email?.value.split("@").pop()?.toLowerCase();
  if (domain && refused.includes(domain)) {
    return {
      action: "deny",
      message:
        input.language === "ru" ? "Регистрация с этого домена закрыта." : "Registrations from this domain are closed.",
    };
  }
  return { action: "allow", ...(domain && domain === trusted && { confirm: { email: true } }) };
}
