/** What a screen is handed (the hash route's parts) and what it answers (its title and content). */
export interface Route {
  /** The path's segments after the screen's name, decoded. */
  params: string[];
  query: URLSearchParams;
}

export type Screen = (route: Route) => Promise<{ title: string; body: Node[] }>;

let redraw: () => Promise<void> = async () => {};

/** The router's redraw, set once by main.ts: a screen shows what the API holds after a change. */
export function onRedraw(fn: () => Promise<void>): void {
  redraw = fn;
}

export const rerender = () => redraw();
