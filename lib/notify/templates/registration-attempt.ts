import type { Template } from "../message";

/**
 * Told to the owner of an e-mail or phone when someone registers with it on the hosted pages
 * (docs/sign-in.md): the page says nothing of the account, so its owner hears it here. No code:
 * nothing in it could complete a registration.
 */
export const registrationAttempt: Template<{ contact: "email" | "phone" }> = ({ contact }, lang) => {
  if (lang === "en") {
    const what = contact === "email" ? "e-mail address" : "phone number";
    return {
      subject: "Someone tried to register with your address",
      text: `Someone tried to create a new account with this ${what}, which already belongs to your account. No account was created. If it was you, sign in, or reset your password if you forgot it. If it was not, you need do nothing.`,
    };
  }
  const what = contact === "email" ? "этим адресом электронной почты" : "этим номером телефона";
  return {
    subject: "Попытка регистрации с вашим адресом",
    text: `Кто-то пытался создать новую учётную запись с ${what}, который уже принадлежит вашей учётной записи. Новая учётная запись не создана. Если это были вы, войдите или восстановите пароль, если забыли его. Если не вы, ничего делать не нужно.`,
  };
};
