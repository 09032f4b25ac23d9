import type { UserAgentDescriber } from "../devices/device";
import type { SecurityEvent } from "./security-event";

export type UaForm = "raw" | "parsed" | "none";

/** An event as the audit read shows it (`ua` raw, parsed into fields by `describe`, or left out). */
export function eventView(event: SecurityEvent, ua: UaForm, describeUserAgent?: UserAgentDescriber) {
  const { sbj, ts, type, cId, ip, sid, result, prms } = event;
  const view: Record<string, unknown> = { sbj, ts, type, cId, ip, sid, result, prms };
  if (ua === "raw") view.ua = event.ua;
  if (ua === "parsed" && event.ua && describeUserAgent) {
    const { tp, os, deviceType, device } = describeUserAgent(event.ua);
    view.ua = { browser: tp, os, deviceType, device };
  }
  return view;
}
