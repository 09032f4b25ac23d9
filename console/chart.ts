/**
 * Counts per hour as a bar chart: SVG drawn with the DOM (no inline style, so the CSP needs
 * none), its numbers in a text alternative for screen readers.
 */

const SVG = "http://www.w3.org/2000/svg";
const HEIGHT = 60;
const BAR = 10;
const GAP = 2;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  return element;
}

/** One bar per hour, tallest = the busiest hour; `describe` words the chart for the text alternative. */
export function hourlyBars(
  counts: { start: number; count: number }[],
  kind: "ok" | "refused" | "limited" | "new",
  describe: (total: number, busiest: number) => string,
  hourLabel: (start: number) => string,
): SVGSVGElement {
  const busiest = Math.max(0, ...counts.map((c) => c.count));
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  const width = counts.length * (BAR + GAP);
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${HEIGHT}`,
    class: `chart chart-${kind}`,
    role: "img",
    "aria-label": describe(total, busiest),
    preserveAspectRatio: "none",
  });
  counts.forEach(({ start, count }, i) => {
    const height = busiest === 0 ? 0 : Math.max(count > 0 ? 1 : 0, Math.round((count / busiest) * HEIGHT));
    const bar = svg("rect", { x: i * (BAR + GAP), y: HEIGHT - height, width: BAR, height });
    const tip = svg("title", {});
    tip.textContent = `${hourLabel(start)}: ${count}`;
    bar.append(tip);
    chart.append(bar);
  });
  return chart;
}
