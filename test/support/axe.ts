import axe from "axe-core";
import type { Page } from "playwright-core";
import { expect } from "vitest";

/** An axe-core violation as the page tests report it. */
export interface Found {
  id: string;
  impact: string;
  targets: string[];
}

/**
 * axe-core's serious and critical violations on the page (WCAG 2.1 A and AA and axe's best
 * practices), in chromium. The pages' CSP admits no inline script, so the page's context
 * must bypass it (`bypassCSP: true`) for axe to be injected.
 */
export async function seriousViolations(page: Page): Promise<Found[]> {
  await page.addScriptTag({ content: axe.source });
  const { violations, passed } = await page.evaluate(async () => {
    const page = globalThis as unknown as { axe: typeof axe; document: Parameters<typeof axe.run>[0] };
    const run = await page.axe.run(page.document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    });
    return {
      passed: run.passes.length,
      violations: run.violations.map((v) => ({
        id: v.id,
        impact: v.impact ?? "",
        targets: v.nodes.map((n) => n.target.join(" ")),
      })),
    };
  });
  // axe ran its rules on a page that has content.
  expect(passed).toBeGreaterThan(5);
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
