/** Every text of the sign-in pages, in the two languages the service speaks. */
export const TEXT = {
  en: {
    signInTitle: "Sign in",
    signInTo: (client: string) => `Sign in to continue to ${client}`,
    username: "Login: e-mail, phone or user name",
    password: "Password",
    otp: "Code from your authenticator app",
    currentPassword: "Current password",
    newPassword: "New password",
    submit: "Sign in",
    continue: "Continue",
    wrongCredentials: "The login or the password is wrong.",
    throttled: "Too many attempts. Wait a while and try again.",
    otpRequired: "Enter your password again and the code from your authenticator app.",
    otpInvalid: "The code is not valid. Enter your password and a new code.",
    changeRequired: "Your password must be changed. Enter the current password and a new one.",
    policy: "The new password does not meet the rules:",
    refused: "Sign-in is not possible for this account. Contact support.",
    sessionEnded: "The sign-in page has expired. Start again from the application.",
    consentTitle: "Allow access",
    consentAsk: (client: string) => `${client} asks to:`,
    allow: "Allow",
    deny: "Deny",
    errorTitle: "Sign-in error",
    unknownClient: "The application is not registered here.",
    badRedirect: "The application gave an address to return to that is not registered. Nothing was sent to it.",
    logoutTitle: "Sign out",
    logoutAsk: "Sign out of your account on this device?",
    logout: "Sign out",
    loggedOut: "You are signed out.",
    scope: {
      openid: "know who you are",
      profile: "see your name",
      email: "see your e-mail address",
      phone: "see your phone number",
      offline_access: "stay signed in",
    } as Record<string, string>,
    permission: (name: string) => `use the permission ${name}`,
  },
  ru: {
    signInTitle: "Вход",
    signInTo: (client: string) => `Войдите, чтобы продолжить в ${client}`,
    username: "Логин: e-mail, телефон или имя пользователя",
    password: "Пароль",
    otp: "Код из приложения-аутентификатора",
    currentPassword: "Текущий пароль",
    newPassword: "Новый пароль",
    submit: "Войти",
    continue: "Продолжить",
    wrongCredentials: "Неверный логин или пароль.",
    throttled: "Слишком много попыток. Подождите и попробуйте снова.",
    otpRequired: "Введите пароль ещё раз и код из приложения-аутентификатора.",
    otpInvalid: "Код неверен. Введите пароль и новый код.",
    changeRequired: "Пароль нужно сменить. Введите текущий пароль и новый.",
    policy: "Новый пароль не соответствует правилам:",
    refused: "Вход для этой учётной записи невозможен. Обратитесь в поддержку.",
    sessionEnded: "Страница входа устарела. Начните снова из приложения.",
    consentTitle: "Разрешить доступ",
    consentAsk: (client: string) => `${client} просит:`,
    allow: "Разрешить",
    deny: "Отклонить",
    errorTitle: "Ошибка входа",
    unknownClient: "Приложение здесь не зарегистрировано.",
    badRedirect: "Приложение указало незарегистрированный адрес возврата. Туда ничего не отправлено.",
    logoutTitle: "Выход",
    logoutAsk: "Выйти из учётной записи на этом устройстве?",
    logout: "Выйти",
    loggedOut: "Вы вышли из учётной записи.",
    scope: {
      openid: "знать, кто вы",
      profile: "видеть ваше имя",
      email: "видеть ваш адрес e-mail",
      phone: "видеть ваш номер телефона",
      offline_access: "оставаться в системе",
    } as Record<string, string>,
    permission: (name: string) => `использовать разрешение ${name}`,
  },
} as const;

export type Language = keyof typeof TEXT;
export type Texts = (typeof TEXT)[Language];

/** ui_locales first (OIDC Core 3.1.2.1), then the browser's languages, then the default. */
export function pageLanguage(uiLocales: string | undefined, fallback: Language): Language {
  for (const tag of (uiLocales ?? "").split(" ")) {
    const base = tag.toLowerCase().split("-")[0];
    if (base === "en" || base === "ru") return base;
  }
  return fallback;
}
