import type UAParserType from "ua-parser-js";

/** A remembered device (interface §2.7), as stored in the account's item collection. */
export interface DeviceRecord {
  /** ua_id: the value apps send back as SVC-CI-UA-ID. */
  id: string;
  subjectId: string;
  /** A readable name: browser or app, and OS. */
  name: string;
  /** Browser name (tp: type of client software). */
  tp: string;
  os: string;
  deviceType: string;
  /** Vendor and model, when the User-Agent says. */
  device: string;
  userAgent: string;
  latestIp: string;
  createdAt: number;
  lastUsed: number;
  /** Until the device is used a second time. */
  newlyCreated: boolean;
  trusted: boolean;
}

/** What interface §2.7 lists for a device. */
export function deviceView(device: DeviceRecord) {
  return {
    id: device.id,
    deviceId: device.id,
    subjectId: device.subjectId,
    name: device.name,
    tp: device.tp,
    os: device.os,
    deviceType: device.deviceType,
    device: device.device,
    latestIp: device.latestIp,
    lastUsed: device.lastUsed,
    newlyCreated: device.newlyCreated,
    trusted: device.trusted,
    // cls: whether the device's sessions are closed. Listed devices have a live session.
    cls: false,
  };
}

export type DeviceView = ReturnType<typeof deviceView>;

/**
 * ua-parser-js tries hundreds of regular expressions per string (10–25 ms in a fresh
 * process for a User-Agent it does not know), and clients send the same few strings
 * again and again: an event list of 20 entries from one app parses once.
 */
const DESCRIBED_LIMIT = 256;

export type DescribedUserAgent = ReturnType<ReturnType<typeof parserOf>>;
export type UserAgentDescriber = (userAgent: string) => DescribedUserAgent;

let describer: Promise<UserAgentDescriber> | undefined;

/**
 * Browser, OS and device fields from a User-Agent string (ua-parser-js). The parser is
 * evaluated on a container's first User-Agent, not at its cold start (a client_credentials
 * grant or a token check never needs it).
 */
export function userAgentDescriber(): Promise<UserAgentDescriber> {
  describer ??= import("ua-parser-js").then((module) => {
    const parse = parserOf(module.default);
    const described = new Map<string, DescribedUserAgent>();
    return (userAgent: string) => {
      let found = described.get(userAgent);
      if (!found) {
        found = parse(userAgent);
        // Oldest first out: a Map iterates in insertion order.
        if (described.size >= DESCRIBED_LIMIT) described.delete(described.keys().next().value as string);
        described.set(userAgent, found);
      }
      return { ...found };
    };
  });
  return describer;
}

function parserOf(UAParser: typeof UAParserType) {
  return (userAgent: string) => {
    // Only the three parts shown: `getResult` would also try the CPU and engine expressions.
    const parser = new UAParser(userAgent);
    const parsed = { browser: parser.getBrowser(), os: parser.getOS(), device: parser.getDevice() };
    const browser = [parsed.browser.name, parsed.browser.major].filter(Boolean).join(" ");
    const os = [parsed.os.name, parsed.os.version].filter(Boolean).join(" ");
    const device = [parsed.device.vendor, parsed.device.model].filter(Boolean).join(" ");
    return {
      tp: browser || "unknown",
      os: os || "unknown",
      deviceType: parsed.device.type ?? "desktop",
      device,
      name: `${browser || userAgent.slice(0, 40) || "unknown client"}${os ? ` on ${os}` : ""}`,
    };
  };
}
