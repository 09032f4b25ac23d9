/** An RQL value with its reserved characters percent-escaped (interface §4.7). */
export function escapeRqlValue(value: string): string {
  return value.replace(/[&|()=<>,%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
