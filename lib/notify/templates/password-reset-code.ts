import type { Template } from "../message";

/**
 * The code that lets a user who forgot the password set a new one (docs/sign-in.md). Like the
 * confirmation code, the text holds no other digit run as long as the code.
 */
export const passwordResetCode: Template<{ code: string; minutes: number }> = ({ code, minutes }, lang) =>
  lang === "en"
    ? {
        subject: "Your password reset code",
        text: `Your code to set a new password: ${code}. It is valid for ${minutes} min. If you did not ask for it, ignore this message: your password stays as it is.`,
      }
    : {
        subject: "Код для смены пароля",
        text: `Ваш код для установки нового пароля: ${code}. Он действует ${minutes} мин. Если вы его не запрашивали, проигнорируйте это сообщение: пароль не изменится.`,
      };
