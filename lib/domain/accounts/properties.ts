import { problems } from "../errors";

/** interface §4.11: free application data on an account, kept small (limits in the README). */
export type PropertyValue = string | number | boolean;
export type Properties = Record<string, PropertyValue>;

export const PROPERTY_LIMITS = { count: 50, nameLength: 64, valueLength: 1024 } as const;

export interface PropertiesChange {
  add?: Properties;
  remove?: string[];
}

/** The map after the change: removals first, then additions (a name in both ends up added). */
export function applyPropertiesChange(current: Properties, change: PropertiesChange): Properties {
  const next: Properties = { ...current };
  for (const name of change.remove ?? []) delete next[name];
  Object.assign(next, change.add ?? {});
  if (Object.keys(next).length > PROPERTY_LIMITS.count) {
    throw problems.wrongValue("add", `an account holds at most ${PROPERTY_LIMITS.count} properties`);
  }
  return next;
}

/** The store's view of properties, so this module stays free of AWS imports. */
export interface PropertyRepository {
  get(sub: string): Promise<{ props: Properties; version: number } | undefined>;
  replace(sub: string, props: Properties, version: number): Promise<boolean>;
}

const CHANGE_ATTEMPTS = 3;

export async function readProperties(store: PropertyRepository, sub: string): Promise<Properties> {
  const stored = await store.get(sub);
  if (!stored) throw problems.unknownUser(sub);
  return stored.props;
}

/** Read, change, write over exactly what was read; a concurrent change makes it start again. */
export async function changeProperties(
  store: PropertyRepository,
  sub: string,
  change: PropertiesChange,
): Promise<Properties> {
  for (let attempt = 1; ; attempt++) {
    const stored = await store.get(sub);
    if (!stored) throw problems.unknownUser(sub);
    const next = applyPropertiesChange(stored.props, change);
    if (await store.replace(sub, next, stored.version)) return next;
    if (attempt >= CHANGE_ATTEMPTS) throw problems.serviceUnavailable();
  }
}
