import { finishAuthorization, operator, signOut, startAuthorization } from "./auth";
import { h } from "./dom";
import type { Language } from "./i18n";
import { activityScreen } from "./screens/activity";
import { clientScreen, clientsScreen, newClientScreen } from "./screens/clients";
import { eventsScreen } from "./screens/events";
import { groupScreen, groupsScreen } from "./screens/groups";
import { keysScreen } from "./screens/keys";
import { orgScreen, orgsScreen } from "./screens/organizations";
import { rightsScreen } from "./screens/rights";
import { onRedraw, type Screen } from "./screens/screen";
import { userScreen } from "./screens/user";
import { usersScreen } from "./screens/users";
import { clearMessages, complain, lang, notice, problem, readOnlyNote, sayPending, setLanguage, t } from "./ui";

/** The admin console (docs/console.md): sign in, then one screen per hash route. */

const app = document.getElementById("app") as HTMLElement;
const HOME = "#/users";

/** `#/<name>/<param>...?<query>` -> the screen that draws it. */
function screenFor(hash: string): { screen: Screen | undefined; params: string[]; query: URLSearchParams } {
  const [path = "", search = ""] = hash.replace(/^#\/?/, "").split("?");
  const [name = "", ...rest] = path.split("/").map((part) => decodeURIComponent(part));
  const query = new URLSearchParams(search);
  const screens: Record<string, Screen> = {
    users: rest.length ? userScreen : usersScreen,
    clients: rest[0] === "new" ? newClientScreen : rest.length ? clientScreen : clientsScreen,
    groups: rest.length >= 2 ? groupScreen : groupsScreen,
    orgs: rest.length ? orgScreen : orgsScreen,
    rights: rightsScreen,
    keys: keysScreen,
    activity: activityScreen,
    events: eventsScreen,
  };
  return { screen: screens[name], params: rest, query };
}

const main = h("main", { id: "main", tabindex: "-1" });

function navigation(): HTMLElement {
  const current = location.hash.split(/[/?]/)[1] ?? "";
  const link = (name: string, label: string) =>
    h("li", {}, h("a", { href: `#/${name}`, ...(current === name && { "aria-current": "page" }) }, label));
  return h(
    "nav",
    { "aria-label": t.navLabel },
    h(
      "ul",
      {},
      link("users", t.users),
      link("clients", t.clients),
      link("groups", t.groups),
      link("orgs", t.organizations),
      link("rights", t.rights),
      link("keys", t.keys),
      link("activity", t.activity),
      link("events", t.eventStream),
    ),
  );
}

function header(): HTMLElement {
  const who = operator();
  const switcher = h(
    "select",
    { id: "language", name: "language" },
    h("option", { value: "en", ...(lang === "en" && { selected: true }) }, "English"),
    h("option", { value: "ru", ...(lang === "ru" && { selected: true }) }, "Русский"),
  );
  switcher.addEventListener("change", () => {
    setLanguage(switcher.value as Language);
    void draw(true);
  });
  return h(
    "header",
    { class: "top" },
    h("p", { class: "brand" }, t.appTitle),
    navigation(),
    h(
      "div",
      { class: "who" },
      who && h("span", {}, `${t.signedInAs} ${who.name} (${who.role === "admin" ? t.roleAdmin : t.roleMonitor})`),
      h("label", { for: "language" }, t.language),
      switcher,
      h("button", { type: "button", onclick: () => void signOut() }, t.signOut),
    ),
  );
}

/** Draws the screen of the address; `moveFocus` on navigation puts focus on the screen's heading. */
async function draw(moveFocus: boolean): Promise<void> {
  const keep = (document.activeElement as HTMLElement | null)?.dataset?.focus;
  const { screen, params, query } = screenFor(location.hash);
  document.title = t.appTitle;
  const skip = h("a", { href: "#main", class: "skip", onclick: skipToMain }, t.skip);
  app.replaceChildren(skip, header(), h("div", { class: "messages" }, notice, problem), main);
  main.replaceChildren(h("p", {}, t.loading));
  main.setAttribute("aria-busy", "true");
  let title = t.notFound;
  let body: Node[] = [];
  try {
    if (screen) ({ title, body } = await screen({ params, query }));
  } catch (error) {
    title = t.failed;
    complain(error);
  }
  const heading = h("h1", { tabindex: "-1" }, title);
  main.replaceChildren(heading, readOnlyNote() ?? "", ...body);
  main.removeAttribute("aria-busy");
  document.title = `${title} · ${t.appTitle}`;
  const again = keep && main.querySelector<HTMLElement>(`[data-focus="${keep}"]`);
  if (again) again.focus();
  else if (moveFocus) heading.focus();
}

/** The skip link moves focus without changing the hash (the hash is the router's). */
function skipToMain(event: Event): void {
  event.preventDefault();
  (main.querySelector("h1") ?? main).focus();
}

/** A page for the ways a sign-in can end without a console, with the way back in. */
function outside(message: string, action: string, go: () => void, alert = false): void {
  const button = h("button", { type: "button", onclick: go }, action);
  app.replaceChildren(
    h("main", { id: "main" }, h("h1", {}, t.appTitle), h("p", alert ? { role: "alert" } : {}, message), button),
  );
  button.focus();
}

async function boot(): Promise<void> {
  // The redirect URI is exactly `<issuer>/console/`: an address without the slash moves there first.
  if (!location.pathname.endsWith("/"))
    return location.replace(`${location.pathname}/${location.search}${location.hash}`);
  const outcome = await finishAuthorization();
  const returnTo = location.hash || HOME;
  switch (outcome.kind) {
    case "fresh":
      // After a reload the hosted session signs the operator in without a page, if it still can.
      app.replaceChildren(h("main", { id: "main" }, h("p", { role: "status" }, t.signingIn)));
      return startAuthorization({ returnTo, prompt: "none", lang });
    case "login-required":
      return startAuthorization({ returnTo: outcome.returnTo, lang });
    case "signed-out":
      return outside(t.signedOut, t.signIn, () => void startAuthorization({ returnTo: HOME, lang }));
    case "denied":
      return outside(
        t.notOperator,
        t.signInOther,
        () => void startAuthorization({ returnTo: HOME, prompt: "login", lang }),
        true,
      );
    case "failed":
      return outside(
        `${t.signInFailed} ${outcome.message}`,
        t.tryAgain,
        () => void startAuthorization({ returnTo, lang }),
        true,
      );
    case "signed-in":
      if (!location.hash) history.replaceState(null, "", HOME);
      onRedraw(() => draw(false));
      window.addEventListener("hashchange", () => {
        clearMessages();
        void draw(true).then(sayPending);
      });
      return draw(true);
  }
}

void boot();
