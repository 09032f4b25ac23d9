import type { Template } from "../message";

/**
 * A code that completes a sign-in as its second factor (docs/sign-in.md). Like the other
 * codes, the text holds no other digit run as long as the code.
 */
export const signInCode: Template<{ code: string; minutes: number }> = ({ code, minutes }, lang) =>
  lang === "en"
    ? {
        subject: "Your sign-in code",
        text: `Your sign-in code: ${code}. It is valid for ${minutes} min. If you are not signing in right now, someone knows your password: change it.`,
      }
    : {
        subject: "Код для входа",
        text: `Ваш код для входа: ${code}. Он действует ${minutes} мин. Если вы сейчас не входите, кто-то знает ваш пароль: смените его.`,
      };
