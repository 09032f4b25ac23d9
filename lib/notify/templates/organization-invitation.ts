import type { Template } from "../message";

/** An invitation to join an organization (docs/organizations.md): the link accepts it once. */
export const organizationInvitation: Template<{ organization: string; link: string; days: number }> = (
  { organization, link, days },
  lang,
) => {
  if (lang === "en")
    return {
      subject: `Invitation to join ${organization}`,
      text: `You are invited to join ${organization}. Follow this link to accept (valid for ${days} days, once): ${link} If you did not expect it, ignore this message.`,
    };
  return {
    subject: `Приглашение в организацию ${organization}`,
    text: `Вас приглашают в организацию ${organization}. Чтобы принять приглашение, перейдите по ссылке (она действует ${days} дн., один раз): ${link} Если вы его не ждали, проигнорируйте это сообщение.`,
  };
};
