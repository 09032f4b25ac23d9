import { ApiError } from "../../domain/errors";
import { COOKIES, readCookie, seeOther, setCookie } from "../../http/browser";
import { type CommonCall, type HttpResult, route } from "../../http/route";
import { type DevicesProblem, devicesBody, devicesTitle } from "../../pages/account/devices";
import {
  afterChange,
  CHANGE_REFUSALS,
  consoleActor,
  consoleForm,
  SECTION_RESPONSES,
  sectionChange,
  sectionPage,
  sectionQuery,
  type Visit,
} from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * The devices and sessions section (docs/account.md): ending sessions only protects the
 * account, so nothing here asks to confirm it's you first.
 */

/** This browser's device: its session's ua_id, else the device cookie. */
const thisDevice = (call: CommonCall, visit: Visit) =>
  visit.browser.session.uaId ?? readCookie(call.cookies, COOKIES.device);

function showDevices(uc: AccountConsoleUseCases, call: CommonCall, extra: { done?: string; problem?: DevicesProblem }) {
  return sectionPage(uc, call, "devices", async (visit) => {
    const devices = await uc.devices.view(visit.browser.account.sub, thisDevice(call, visit));
    const body = devicesBody({ lang: visit.lang, csrf: visit.csrf, devices, ...extra });
    return { title: devicesTitle(visit.lang), body, status: extra.problem ? 400 : 200 };
  });
}

const changeResponses = {
  303: { description: "Signed out: to the section, which says so; to the signed-out page when it was this device" },
  ...CHANGE_REFUSALS,
} as const;

const devices = { section: "devices", sensitive: false } as const;

const view = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.devices",
    method: "GET",
    path: "/svc/account/devices",
    version: "page",
    auth: "none",
    summary: "The account console's devices and sessions: where the account is signed in",
    tags: ["account"],
    request: { query: sectionQuery },
    responses: SECTION_RESPONSES,
    handler: (call) => showDevices(uc, call, call.query.done ? { done: call.query.done } : {}),
  });

/** Signed out of this browser's own device: its session is gone, so is the cookie; the signed-out page says so. */
function signedOutHere(call: CommonCall): HttpResult {
  return seeOther(`/svc/oauth/logout?ui_locales=${call.language}`, [setCookie(COOKIES.session, "", 0)]);
}

const signOut = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.device-sign-out",
    method: "POST",
    path: "/svc/account/devices/sign-out",
    version: "page",
    auth: "none",
    summary: "Sign a device out: forget it and end every session on it (device_delete)",
    tags: ["account"],
    request: {
      body: { contentType: "form", schema: consoleForm({ id: { type: "string", maxLength: 200 } }), required: true },
    },
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, devices, async (visit) => {
        try {
          const sub = visit.browser.account.sub;
          const id = call.body.id ?? "";
          const here = await uc.devices.signOut(sub, id, thisDevice(call, visit), consoleActor(call, visit));
          return here ? signedOutHere(call) : afterChange("devices", "device-signed-out");
        } catch (error) {
          if (!(error instanceof ApiError && error.error === "unknown_device")) throw error;
          return showDevices(uc, call, { problem: "unknownDevice" });
        }
      }),
  });

const signOutOthers = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.devices-sign-out-others",
    method: "POST",
    path: "/svc/account/devices/sign-out-others",
    version: "page",
    auth: "none",
    summary: "End every session on the account's other devices; this one stays signed in (sessions_reset)",
    tags: ["account"],
    request: { body: { contentType: "form", schema: consoleForm({}), required: true } },
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, devices, async (visit) => {
        const current = thisDevice(call, visit);
        // A browser session always has its device; without one, nothing tells this device from the others.
        if (!current) return showDevices(uc, call, { problem: "unknownDevice" });
        await uc.devices.signOutOthers(visit.browser.account.sub, current, consoleActor(call, visit));
        return afterChange("devices", "others-signed-out");
      }),
  });

export const deviceRoutes = (uc: AccountConsoleUseCases) => [view(uc), signOut(uc), signOutOthers(uc)];
